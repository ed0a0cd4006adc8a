/* Read-only file mapping, directory listing and unaligned integer reads for the
 * Syzygy prober (syzygy.pxi). POSIX uses mmap/opendir, Windows uses
 * CreateFileMapping/MapViewOfFile and FindFirstFile. Nothing here allocates
 * more than one small directory handle; the mapped views stay valid after the
 * file handles are closed, so unmapping needs only the base pointer and size. */
#ifndef FIANCHETTO_TBFILE_H
#define FIANCHETTO_TBFILE_H

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#define TBF_LIST_SEP ';'
#define TBF_DIR_SEP '\\'
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#define TBF_LIST_SEP ':'
#define TBF_DIR_SEP '/'
#endif

#if defined(_WIN32)
/* Paths arrive as UTF-8 (Python's os.fsencode on Windows); the wide-character
 * API takes them whatever the ANSI code page. `suffix` (ASCII) is appended. */
static wchar_t* tbf_widen(const char* path, const char* suffix) {
    int n = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
    size_t extra = suffix ? strlen(suffix) : 0, i;
    wchar_t* wide;
    if (n <= 0)
        return NULL;
    wide = (wchar_t*)malloc(sizeof(wchar_t) * ((size_t)n + extra));
    if (wide == NULL)
        return NULL;
    MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, n);
    for (i = 0; i < extra; i++)
        wide[n - 1 + i] = (wchar_t)suffix[i];
    wide[n - 1 + extra] = 0;
    return wide;
}
#endif

/* ---- mapping --------------------------------------------------------------- */

/* Map the whole file at `path` read-only. Returns the base address and stores the
 * length in *size, or returns NULL (empty, missing or unreadable file). */
static const uint8_t* tbf_map(const char* path, uint64_t* size) {
#if defined(_WIN32)
    HANDLE file, mapping;
    LARGE_INTEGER length;
    void* view;
    wchar_t* wide = tbf_widen(path, NULL);
    *size = 0;
    if (wide == NULL)
        return NULL;
    file = CreateFileW(wide, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                       FILE_FLAG_RANDOM_ACCESS, NULL);
    free(wide);
    if (file == INVALID_HANDLE_VALUE)
        return NULL;
    if (!GetFileSizeEx(file, &length) || length.QuadPart <= 0) {
        CloseHandle(file);
        return NULL;
    }
    mapping = CreateFileMappingA(file, NULL, PAGE_READONLY, 0, 0, NULL);
    CloseHandle(file);
    if (mapping == NULL)
        return NULL;
    view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(mapping);      /* the view keeps the mapping object alive */
    if (view == NULL)
        return NULL;
    *size = (uint64_t)length.QuadPart;
    return (const uint8_t*)view;
#else
    /* The length comes from lseek rather than fstat: glibc 2.33 gave fstat a new
     * symbol version, and a core that links it loads only on glibc 2.33 and later
     * (the manylinux tag of the wheel follows). A directory or other non-file
     * that opens anyway fails at mmap. */
    off_t length;
    void* view;
    int fd = open(path, O_RDONLY);
    *size = 0;
    if (fd < 0)
        return NULL;
    length = lseek(fd, 0, SEEK_END);
    if (length <= 0) {
        close(fd);
        return NULL;
    }
    view = mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);                 /* the mapping survives the descriptor */
    if (view == MAP_FAILED)
        return NULL;
#if defined(MADV_RANDOM)
    madvise(view, (size_t)length, MADV_RANDOM);
#endif
    *size = (uint64_t)length;
    return (const uint8_t*)view;
#endif
}

static void tbf_unmap(const uint8_t* base, uint64_t size) {
    if (base == NULL)
        return;
#if defined(_WIN32)
    (void)size;
    UnmapViewOfFile((LPCVOID)base);
#else
    munmap((void*)base, (size_t)size);
#endif
}

/* ---- directory listing ----------------------------------------------------- */

typedef struct tbf_dir {
#if defined(_WIN32)
    HANDLE find;
    WIN32_FIND_DATAW entry;
    char name[4 * MAX_PATH];   /* the current entry's name in UTF-8 */
    int first;                 /* entry already holds an unread name */
#else
    DIR* dir;
#endif
} tbf_dir;

/* Open a directory for listing; NULL if it cannot be read. */
static tbf_dir* tbf_dir_open(const char* path) {
    tbf_dir* d = (tbf_dir*)calloc(1, sizeof(tbf_dir));
    if (d == NULL)
        return NULL;
#if defined(_WIN32)
    {
        wchar_t* pattern = tbf_widen(path, "\\*");
        if (pattern == NULL) {
            free(d);
            return NULL;
        }
        d->find = FindFirstFileW(pattern, &d->entry);
        free(pattern);
        if (d->find == INVALID_HANDLE_VALUE) {
            free(d);
            return NULL;
        }
        d->first = 1;
    }
#else
    d->dir = opendir(path);
    if (d->dir == NULL) {
        free(d);
        return NULL;
    }
#endif
    return d;
}

/* The next entry's name (valid until the next call), or NULL at the end. */
static const char* tbf_dir_next(tbf_dir* d) {
#if defined(_WIN32)
    if (d->first)
        d->first = 0;
    else if (!FindNextFileW(d->find, &d->entry))
        return NULL;
    if (WideCharToMultiByte(CP_UTF8, 0, d->entry.cFileName, -1, d->name, (int)sizeof(d->name),
                            NULL, NULL) <= 0)
        d->name[0] = 0;        /* unconvertible: an empty name, skipped by the caller */
    return d->name;
#else
    struct dirent* e = readdir(d->dir);
    return e ? e->d_name : NULL;
#endif
}

static void tbf_dir_close(tbf_dir* d) {
    if (d == NULL)
        return;
#if defined(_WIN32)
    FindClose(d->find);
#else
    closedir(d->dir);
#endif
    free(d);
}

/* ---- unaligned reads -------------------------------------------------------- */

static inline uint32_t tbf_le16(const uint8_t* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline uint32_t tbf_le32(const uint8_t* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint32_t tbf_be32(const uint8_t* p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t tbf_be64(const uint8_t* p) {
    return ((uint64_t)tbf_be32(p) << 32) | (uint64_t)tbf_be32(p + 4);
}

#endif
