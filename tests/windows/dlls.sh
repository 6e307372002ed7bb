#!/usr/bin/env bash
# The Windows programs need no DLL beside them but Windows' own:
#   tests/windows/dlls.sh OBJDUMP ganim.exe ganim.dll consumer_dll.exe
# ganim.exe and ganim.dll import only system DLLs (KERNEL32, msvcrt, SHELL32, ...: no
# libgcc, no libwinpthread); consumer_dll.exe imports ganim.dll (it is the DLL's test).
set -u
objdump=${1:?usage: dlls.sh OBJDUMP GANIM_EXE GANIM_DLL CONSUMER_DLL_EXE}
exe=${2:?} dll=${3:?} consumer=${4:?}
passed=0 failed=0
imports() { "$objdump" -p "$1" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -u; }
# Part of every Windows 10/11: the kernel, the C runtimes and the shell.
system_dll() {
    case "$(echo "$1" | tr '[:upper:]' '[:lower:]')" in
    kernel32.dll | msvcrt.dll | ucrtbase.dll | api-ms-win-crt-*.dll | shell32.dll | user32.dll | advapi32.dll) return 0 ;;
    *) return 1 ;;
    esac
}
for f in "$exe" "$dll"; do
    list=$(imports "$f")
    others=""
    for d in $list; do system_dll "$d" || others="$others $d"; done
    if [ -n "$list" ] && [ -z "$others" ]; then
        passed=$((passed + 1)); echo "ok   $(basename "$f") imports only system DLLs:" $list
    else
        failed=$((failed + 1)); echo "FAIL $(basename "$f") imports${others:- nothing?}: a user would need them beside it"
    fi
done
if imports "$consumer" | grep -qix 'ganim.dll'; then
    passed=$((passed + 1)); echo "ok   $(basename "$consumer") runs on ganim.dll"
else
    failed=$((failed + 1)); echo "FAIL $(basename "$consumer") does not import ganim.dll"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
