#!/usr/bin/env bash
# No 256-bit vector is moved to or from memory by an aligned move in the Windows programs:
#   tests/windows/vector_moves.sh OBJDUMP ganim.exe ganim.dll
# Windows keeps the stack 16-byte aligned, and MinGW's gcc spills a __m256 with vmovaps or
# vmovdqa as if it were 32 (gcc bug 54412): such a move faults whenever the frame lands on
# an odd 16 bytes (through %rsp, %rbp or any register holding a stack address). The build
# assembles every aligned vector move as its unaligned form (-Wa,-muse-unaligned-vector-move,
# CMakeLists.txt); this checks the result: no aligned 256- or 512-bit move with a memory
# operand anywhere.
set -u
objdump=${1:?usage: vector_moves.sh OBJDUMP FILE...}
shift
passed=0 failed=0
for f in "$@"; do
    bad=$("$objdump" -d --no-show-raw-insn "$f" | grep -E '\s(vmovaps|vmovapd|vmovdqa|vmovdqa32|vmovdqa64|vmovntps|vmovntdq)\s' |
        grep -E '%ymm|%zmm' | grep -F '(' | head -3)
    if [ -z "$bad" ]; then
        passed=$((passed + 1)); echo "ok   $(basename "$f"): no aligned 256-bit move to or from memory"
    else
        failed=$((failed + 1)); echo "FAIL $(basename "$f") moves 256-bit vectors to or from memory with aligned moves:"; echo "$bad"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
