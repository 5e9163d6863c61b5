/*
 * workload.c - a process whose file I/O is known exactly, for the recorder
 * tests (tests/test_workload.sh checks every event listed here).
 *
 * usage: workload DIR    (DIR exists and is empty; exits 3 on success so the
 * test also checks that the recorder passes the exit status on)
 *
 *  1 chdir DIR; mkdir sub; openat "data.bin" O_CREAT|O_RDWR|O_TRUNC
 *  2 write x16 of 4096 B            -> offsets 0, 4096, ..., 61440
 *  3 fsync
 *  4 lseek 8192; read 4096 x2       -> offsets 8192, 12288
 *  5 pread 4096 @ 32768; preadv 16x256 @ 40960 (more iovecs than 8)
 *  6 dup; read 4096 on the dup      -> offset 16384 (shared position)
 *  7 log.txt O_APPEND: write 100; lseek 0; write 100 -> offsets 0, 100
 *  8 thread: pread 4096 @ 4096 of data.bin (own tid)
 *  9 fork: child opens child.bin (8192 B, made by the parent) and reads
 *    4096 twice (offsets 0, 4096), exits 0
 * 10 mmap data.bin 64 KiB, touch every page, munmap
 * 11 O_DIRECT pread 4096 @ 0 of data.bin
 * 12 chdir sub; open "../data.bin" -> DIR/data.bin; chdir ..
 * 13 openat(dirfd of DIR, "child.bin")
 * 14 rename log.txt log2.txt; unlink log2.txt; stat data.bin
 * 15 copies: src.bin (64 KiB, ftruncate: no writes) to dst.bin, fds 3
 *    and 4, dst's position at 4096:
 *    sendfile(4, 3, &8192, 16384)          -> in 8192, out 4096 (f_pos)
 *    copy_file_range(3, &0, 4, &32768, 8192) -> in 0, out 32768
 *    lseek(3, 12288); copy_file_range(3, NULL, 4, NULL, 4096)
 *                                          -> in 12288, out 20480
 * 16 metadata calls, with data.bin open as fd 3 and DIR as fd 4:
 *    access("data.bin", R_OK | W_OK) -> 0; access("nosuch", F_OK) -> ENOENT
 *    faccessat(4, "child.bin", X_OK) (the syscall) -> EACCES (no x bit)
 *    faccessat(AT_FDCWD, "data.bin", R_OK, AT_EACCESS) (glibc: faccessat2)
 *    faccessat(3, "", F_OK, AT_EMPTY_PATH) (faccessat2 on the fd) -> 0
 *    symlink data.bin as "link"; readlink("link", 64) -> 8;
 *    readlinkat(4, "link", 32) -> 8; readlink("data.bin", 64) -> EINVAL
 * 17 files off storage: /dev/shm/iotape-wl-PID (tmpfs) opened as fd 3,
 *    write 4096, pread 4096 @ 0, close, unlink; /proc/self/stat (proc)
 *    opened as fd 3, read 4096 (ret: its length), close
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define CHECK(x) do { if ((x) < 0) { perror(#x); exit(1); } } while (0)

static char buf[4096];
static int data_fd;

static void *thread_main(void *arg)
{
	char tbuf[4096];

	(void)arg;
	if (pread(data_fd, tbuf, sizeof(tbuf), 4096) != 4096)
		exit(1);
	return NULL;
}

/* child.bin (8192 B), written before anything that the test counts */
static void make_child_bin(void)
{
	int cf;

	CHECK(cf = open("child.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644));
	memset(buf, 'c', sizeof(buf));
	CHECK(write(cf, buf, 4096));
	CHECK(write(cf, buf, 4096));
	CHECK(close(cf));
}

/* steps 1-6: data.bin written, read at its position, at offsets, through a
 * dup; returns its fd, left open, or -1 */
static int data_rw(void)
{
	static char vbuf[16][256];
	struct iovec iov[16];
	int fd, fd2;

	CHECK(fd = openat(AT_FDCWD, "data.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
	for (int i = 0; i < 16; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		if (write(fd, buf, 4096) != 4096)
			return -1;
	}
	CHECK(fsync(fd));
	CHECK(lseek(fd, 8192, SEEK_SET));
	CHECK(read(fd, buf, 4096));
	CHECK(read(fd, buf, 4096));
	CHECK(pread(fd, buf, 4096, 32768));
	for (int i = 0; i < 16; i++)
		iov[i] = (struct iovec){ vbuf[i], sizeof(vbuf[i]) };
	CHECK(preadv(fd, iov, 16, 40960));
	CHECK(fd2 = dup(fd));
	CHECK(read(fd2, buf, 4096));
	CHECK(close(fd2));
	return fd;
}

/* step 7: log.txt appended to, before and after an lseek to 0 */
static void log_append(void)
{
	int lg;

	CHECK(lg = open("log.txt", O_CREAT | O_WRONLY | O_APPEND, 0644));
	memset(buf, 'l', 100);
	CHECK(write(lg, buf, 100));
	CHECK(lseek(lg, 0, SEEK_SET));
	CHECK(write(lg, buf, 100));
	CHECK(close(lg));
}

/* steps 8-9: a thread reads data.bin (fd), a child process child.bin */
static int thread_and_child(int fd)
{
	pthread_t th;
	pid_t child;
	int cf;

	data_fd = fd;
	if (pthread_create(&th, NULL, thread_main, NULL))
		return -1;
	pthread_join(th, NULL);

	child = fork();
	CHECK(child);
	if (child == 0) {
		CHECK(cf = open("child.bin", O_RDONLY));
		CHECK(read(cf, buf, 4096));
		CHECK(read(cf, buf, 4096));
		CHECK(close(cf));
		_exit(0);
	}
	int st;
	waitpid(child, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/* steps 10-11: data.bin (fd, closed here) through a memory map, then read
 * with O_DIRECT */
static int mmap_and_direct(int fd)
{
	volatile char sum = 0;
	void *dbuf;
	char *m;
	int dfd;

	m = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	for (int i = 0; i < 16; i++)
		sum += m[i * 4096];
	CHECK(munmap(m, 65536));
	CHECK(close(fd));
	(void)sum;

	if (posix_memalign(&dbuf, 4096, 4096))
		return -1;
	CHECK(dfd = open("data.bin", O_RDONLY | O_DIRECT));
	CHECK(pread(dfd, dbuf, 4096, 0));
	CHECK(close(dfd));
	free(dbuf);
	return 0;
}

/* steps 12-14: paths relative to another directory and to a dirfd; a
 * rename, an unlink, a stat */
static void paths(void)
{
	struct stat sb;
	int fd, dirfd;

	CHECK(chdir("sub"));
	CHECK(fd = open("../data.bin", O_RDONLY));
	CHECK(close(fd));
	CHECK(chdir(".."));

	CHECK(dirfd = open(".", O_RDONLY | O_DIRECTORY));
	CHECK(fd = openat(dirfd, "child.bin", O_RDONLY));
	CHECK(close(fd));
	CHECK(close(dirfd));

	CHECK(rename("log.txt", "log2.txt"));
	CHECK(unlink("log2.txt"));
	CHECK(stat("data.bin", &sb));
}

/* step 15: sendfile and copy_file_range from src.bin (fd 3) to dst.bin (4) */
static int copies(void)
{
	int src, dst;
	off_t off = 8192;
	loff_t in = 0, out = 32768;

	CHECK(src = open("src.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
	CHECK(dst = open("dst.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
	if (src != 3 || dst != 4)
		return -1;
	CHECK(ftruncate(src, 65536));
	CHECK(lseek(dst, 4096, SEEK_SET));
	if (sendfile(dst, src, &off, 16384) != 16384)
		return -1;
	if (copy_file_range(src, &in, dst, &out, 8192, 0) != 8192)
		return -1;
	CHECK(lseek(src, 12288, SEEK_SET));
	if (copy_file_range(src, NULL, dst, NULL, 4096, 0) != 4096)
		return -1;
	CHECK(close(src));
	CHECK(close(dst));
	return 0;
}

/* step 16: the metadata calls, with data.bin as fd 3 and DIR as fd 4 */
static int metadata(void)
{
	char lnk[64];
	int fd, dir;

	/* O_CLOEXEC: rows apart from step 12's open of data.bin */
	CHECK(fd = open("data.bin", O_RDONLY | O_CLOEXEC));
	CHECK(dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd != 3 || dir != 4)
		return -1;
	CHECK(access("data.bin", R_OK | W_OK));
	if (access("nosuch", F_OK) == 0)
		return -1;
	if (syscall(SYS_faccessat, dir, "child.bin", X_OK) == 0)
		return -1;
	CHECK(faccessat(AT_FDCWD, "data.bin", R_OK, AT_EACCESS));
	CHECK(faccessat(fd, "", F_OK, AT_EMPTY_PATH));
	CHECK(symlink("data.bin", "link"));
	if (readlink("link", lnk, 64) != 8 || readlinkat(dir, "link", lnk, 32) != 8)
		return -1;
	if (readlink("data.bin", lnk, 64) >= 0)
		return -1;
	CHECK(close(dir));
	CHECK(close(fd));
	return 0;
}

/* step 17: files off storage, on tmpfs and proc, each as fd 3 */
static int off_storage(void)
{
	char shm[64];
	int fd;

	snprintf(shm, sizeof(shm), "/dev/shm/iotape-wl-%d", (int)getpid());
	CHECK(fd = open(shm, O_CREAT | O_RDWR | O_TRUNC, 0600));
	memset(buf, 's', 4096);
	if (fd != 3 || write(fd, buf, 4096) != 4096 || pread(fd, buf, 4096, 0) != 4096)
		return -1;
	CHECK(close(fd));
	CHECK(unlink(shm));
	CHECK(fd = open("/proc/self/stat", O_RDONLY));
	if (fd != 3 || read(fd, buf, 4096) <= 0)
		return -1;
	CHECK(close(fd));
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return 2;
	CHECK(chdir(argv[1]));
	CHECK(mkdir("sub", 0755));
	make_child_bin();
	if ((fd = data_rw()) < 0)
		return 1;
	log_append();
	if (thread_and_child(fd) || mmap_and_direct(fd))
		return 1;
	paths();
	if (copies() || metadata() || off_storage())
		return 1;
	return 3;
}
