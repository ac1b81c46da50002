// SPDX-License-Identifier: GPL-2.0
/*
 * imatool: what the guest's suites need that busybox cannot do.
 *
 *   imatool asuid UID CMD [ARG...]   run CMD with all uids and gids set to
 *                                    UID and no supplementary groups (the
 *                                    guest has no passwd file for su)
 *   imatool mmapx FILE               map FILE with PROT_EXEC, the way the
 *                                    dynamic loader maps a library, so the
 *                                    MMAP_CHECK hook runs
 *   imatool mkreg FILE               make an empty regular file with
 *                                    mknod(2), the one way of creating a
 *                                    file that EVM marks as new (busybox
 *                                    mknod makes only devices and FIFOs)
 *
 * Exit: 0 done, 1 the system call failed (message on stderr), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: imatool asuid UID CMD [ARG...] | imatool mmapx FILE | imatool mkreg FILE\n");
	return 2;
}

static int asuid(char **argv)
{
	char *end;
	unsigned long id = strtoul(argv[0], &end, 10);

	if (*argv[0] == '\0' || *end != '\0')
		return usage();
	if (setgroups(0, NULL) || setresgid(id, id, id) || setresuid(id, id, id)) {
		perror("imatool: cannot change uid");
		return 1;
	}
	execvp(argv[1], &argv[1]);
	fprintf(stderr, "imatool: cannot run %s: %s\n", argv[1], strerror(errno));
	return 1;
}

static int mmapx(const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "imatool: %s: %s\n", path, strerror(errno));
		return 1;
	}
	p = mmap(NULL, st.st_size ? st.st_size : 1, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "imatool: mmap(PROT_EXEC) %s: %s\n", path, strerror(errno));
		return 1;
	}
	munmap(p, st.st_size ? st.st_size : 1);
	close(fd);
	return 0;
}

static int mkreg(const char *path)
{
	if (mknod(path, S_IFREG | 0644, 0)) {
		fprintf(stderr, "imatool: mknod %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "asuid"))
		return asuid(&argv[2]);
	if (argc == 3 && !strcmp(argv[1], "mmapx"))
		return mmapx(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "mkreg"))
		return mkreg(argv[2]);
	return usage();
}
