/* uring.c FILE - io_uring I/O known exactly: FILE gets 16 KiB written with
 * write(2); then through one ring: read 4096 @ 0, read 4096 @ 8192,
 * write 4096 @ 16384, fsync (linked after the write); then FILE opened
 * again through the ring (OPENAT, relative to its directory's fd), read
 * 100 @ 0 through that fd, and closed through the ring (CLOSE). */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char a[4096], b[4096], c[4096];
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	memset(c, 'x', sizeof(c));
	for (int i = 0; i < 4; i++)
		if (write(fd, c, sizeof(c)) != sizeof(c))
			return 1;
	if (io_uring_queue_init(8, &ring, 0))
		return 77;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, a, sizeof(a), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, b, sizeof(b), 8192);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, c, sizeof(c), 16384);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_fsync(sqe, fd, 0);
	if (io_uring_submit(&ring) != 4)
		return 1;
	for (int i = 0; i < 4; i++) {
		if (io_uring_wait_cqe(&ring, &cqe))
			return 1;
		if (cqe->res < 0)
			return 1;
		io_uring_cqe_seen(&ring, cqe);
	}
	close(fd);

	/* open, read, close through the ring */
	const char *slash = strrchr(argv[1], '/');
	char dir[4096];
	int dfd, fd2;
	if (!slash || slash == argv[1] || (size_t)(slash - argv[1]) >= sizeof(dir))
		return 2;
	memcpy(dir, argv[1], slash - argv[1]);
	dir[slash - argv[1]] = 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return 1;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_openat(sqe, dfd, slash + 1, O_RDONLY, 0);
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe) || cqe->res < 0)
		return 1;
	fd2 = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd2, a, 100, 0);
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe) || cqe->res != 100)
		return 1;
	io_uring_cqe_seen(&ring, cqe);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_close(sqe, fd2);
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe) || cqe->res != 0)
		return 1;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	close(dfd);
	printf("%d\n", fd2);
	return 0;
}
