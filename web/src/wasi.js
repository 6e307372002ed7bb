// The little of WASI (preview 1) the library uses, over one in-memory folder: the files
// the user dropped. It is the module's only folder, "/", and the library reads it as the
// command line reads a real one (fopen, stat, opendir), so a companion skeleton, a
// glTF's buffers or an archive's data file are found by the same code. Read-only: a
// file cannot be created or written; standard output and error go nowhere (the library
// never prints).

const ERRNO = { SUCCESS: 0, ACCES: 2, BADF: 8, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52, NOTDIR: 54, ROFS: 69 };
const FILETYPE = { CHARACTER_DEVICE: 2, DIRECTORY: 3, REGULAR_FILE: 4 };
const OFLAGS = { CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 };
const ALL_RIGHTS = 0x1fffffffn;
const ROOT_FD = 3;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class WasiExit extends Error {
    constructor(code) {
        super(`the module exited with status ${code}`);
        this.code = code;
    }
}

export class MemoryFolder {
    constructor() {
        this.files = new Map(); // name -> Uint8Array
    }

    // Replaces the folder's content with `entries`: [name, Uint8Array] pairs.
    set(entries) {
        this.files = new Map(entries);
    }

    // A name inside the folder ("X.alo", "./X.alo"), or null for anything that leaves
    // it or names a sub-folder: the folder is flat.
    static clean(path) {
        const parts = path.split('/').filter((p) => p !== '' && p !== '.');
        if (parts.length === 0) return '';
        if (parts.length > 1 || parts[0] === '..') return null;
        return parts[0];
    }
}

// The wasi_snapshot_preview1 imports for `folder`; `memory()` gives the module's memory
// (known only once the module is instantiated).
export function wasiImports(folder, memory) {
    const open = new Map(); // fd -> {kind: 'dir'|'file', data, pos, names}
    let nextFd = ROOT_FD + 1;
    const view = () => new DataView(memory().buffer);
    const bytes = () => new Uint8Array(memory().buffer);
    const readPath = (ptr, len) => decoder.decode(bytes().subarray(ptr, ptr + len));
    const lookup = (dirfd, path) => {
        const dir = dirfd === ROOT_FD ? { kind: 'dir' } : open.get(dirfd);
        if (!dir || dir.kind !== 'dir') return { errno: ERRNO.BADF };
        const name = MemoryFolder.clean(path);
        if (name === null) return { errno: ERRNO.NOENT };
        if (name === '') return { kind: 'dir', ino: 1 };
        const data = folder.files.get(name);
        return data ? { kind: 'file', data, ino: 2 + [...folder.files.keys()].indexOf(name) } : { errno: ERRNO.NOENT };
    };
    const iovecs = (iovs, count) => {
        const v = view();
        const list = [];
        for (let i = 0; i < count; i++) list.push([v.getUint32(iovs + 8 * i, true), v.getUint32(iovs + 8 * i + 4, true)]);
        return list;
    };
    return {
        fd_prestat_get(fd, buf) {
            if (fd !== ROOT_FD) return ERRNO.BADF;
            const v = view();
            v.setUint8(buf, 0); // a directory
            v.setUint32(buf + 4, 1, true); // "/"
            return ERRNO.SUCCESS;
        },
        fd_prestat_dir_name(fd, path, len) {
            if (fd !== ROOT_FD) return ERRNO.BADF;
            if (len < 1) return ERRNO.INVAL;
            bytes()[path] = 0x2f; // "/"
            return ERRNO.SUCCESS;
        },
        fd_fdstat_get(fd, buf) {
            const f = fd === ROOT_FD ? { kind: 'dir' } : open.get(fd);
            const type = fd <= 2 ? FILETYPE.CHARACTER_DEVICE : f ? (f.kind === 'dir' ? FILETYPE.DIRECTORY : FILETYPE.REGULAR_FILE) : -1;
            if (type < 0) return ERRNO.BADF;
            const v = view();
            v.setUint8(buf, type);
            v.setUint16(buf + 2, 0, true);
            v.setBigUint64(buf + 8, ALL_RIGHTS, true);
            v.setBigUint64(buf + 16, ALL_RIGHTS, true);
            return ERRNO.SUCCESS;
        },
        fd_fdstat_set_flags() {
            return ERRNO.SUCCESS;
        },
        path_open(dirfd, dirflags, pathPtr, pathLen, oflags, rightsBase, rightsInheriting, fdflags, fdOut) {
            if (oflags & (OFLAGS.CREAT | OFLAGS.TRUNC | OFLAGS.EXCL)) return ERRNO.ROFS;
            const found = lookup(dirfd, readPath(pathPtr, pathLen));
            if (found.errno) return found.errno;
            if (oflags & OFLAGS.DIRECTORY && found.kind !== 'dir') return ERRNO.NOTDIR;
            const fd = nextFd++;
            open.set(fd, found.kind === 'dir' ? { kind: 'dir', names: [...folder.files.keys()] } : { kind: 'file', data: found.data, pos: 0 });
            view().setUint32(fdOut, fd, true);
            return ERRNO.SUCCESS;
        },
        path_filestat_get(dirfd, flags, pathPtr, pathLen, buf) {
            const found = lookup(dirfd, readPath(pathPtr, pathLen));
            if (found.errno) return found.errno;
            const v = view();
            for (let i = 0; i < 64; i += 8) v.setBigUint64(buf + i, 0n, true);
            v.setBigUint64(buf + 8, BigInt(found.ino), true);
            v.setUint8(buf + 16, found.kind === 'dir' ? FILETYPE.DIRECTORY : FILETYPE.REGULAR_FILE);
            v.setBigUint64(buf + 24, 1n, true);
            v.setBigUint64(buf + 32, BigInt(found.kind === 'dir' ? 0 : found.data.length), true);
            return ERRNO.SUCCESS;
        },
        fd_read(fd, iovs, count, nread) {
            const f = open.get(fd);
            if (!f) return ERRNO.BADF;
            if (f.kind !== 'file') return ERRNO.ISDIR;
            let total = 0;
            for (const [ptr, len] of iovecs(iovs, count)) {
                const n = Math.max(0, Math.min(len, f.data.length - f.pos));
                bytes().set(f.data.subarray(f.pos, f.pos + n), ptr);
                f.pos += n;
                total += n;
                if (n < len) break;
            }
            view().setUint32(nread, total, true);
            return ERRNO.SUCCESS;
        },
        fd_seek(fd, offset, whence, newOffset) {
            const f = open.get(fd);
            if (!f) return ERRNO.BADF;
            if (f.kind !== 'file') return ERRNO.ISDIR;
            const base = whence === 0 ? 0 : whence === 1 ? f.pos : whence === 2 ? f.data.length : NaN;
            const pos = base + Number(offset);
            if (!Number.isFinite(pos) || pos < 0) return ERRNO.INVAL;
            f.pos = pos;
            view().setBigUint64(newOffset, BigInt(pos), true);
            return ERRNO.SUCCESS;
        },
        fd_readdir(fd, buf, bufLen, cookie, bufUsed) {
            const f = open.get(fd);
            if (!f) return ERRNO.BADF;
            if (f.kind !== 'dir') return ERRNO.NOTDIR;
            // Entries from `cookie` on: a 24-byte header and the name each, cut where the
            // buffer ends (the library then asks again with a larger one).
            const out = [];
            for (let i = Number(cookie); i < f.names.length; i++) {
                const name = encoder.encode(f.names[i]);
                const head = new Uint8Array(24);
                const h = new DataView(head.buffer);
                h.setBigUint64(0, BigInt(i + 1), true);
                h.setBigUint64(8, BigInt(i + 2), true);
                h.setUint32(16, name.length, true);
                h.setUint8(20, FILETYPE.REGULAR_FILE);
                out.push(head, name);
            }
            let used = 0;
            const mem = bytes();
            for (const part of out) {
                const n = Math.min(part.length, bufLen - used);
                mem.set(part.subarray(0, n), buf + used);
                used += n;
                if (used === bufLen) break;
            }
            view().setUint32(bufUsed, used, true);
            return ERRNO.SUCCESS;
        },
        fd_write(fd, iovs, count, nwritten) {
            let total = 0;
            for (const [, len] of iovecs(iovs, count)) total += len;
            view().setUint32(nwritten, total, true);
            return fd === 1 || fd === 2 ? ERRNO.SUCCESS : ERRNO.BADF;
        },
        fd_close(fd) {
            return open.delete(fd) ? ERRNO.SUCCESS : ERRNO.BADF;
        },
        proc_exit(code) {
            throw new WasiExit(code);
        },
    };
}

export { ERRNO };
