// SPDX-License-Identifier: GPL-2.0
/*
 * openbench: the guest's side of the memory and cost report.
 *
 *   openbench stat DIR...   fstatat() every entry of each folder: inodes come
 *                           into core, nothing is opened (no IMA hook runs)
 *   openbench read DIR...   open, read to the end and close every file, as
 *                           the caller (root under ima_policy=tcb: measured)
 *   openbench time [-u UID] [-w] [-n MAX] [-r REPEATS] [-j THREADS] DIR...
 *                           open+close every file (O_RDONLY, or O_RDWR with
 *                           -w), as UID if given: one untimed pass first,
 *                           then REPEATS timed passes, each printed as
 *                           "pass I OPENS NANOSECONDS"; with -j, THREADS
 *                           threads each open+close every file in a pass
 *                           (each from its own starting point), started
 *                           together, and the pass lasts until the last
 *                           one ends (OPENS = files x THREADS)
 *   openbench evict [-n MAX] [-r REPEATS] [-k KEEPDIR]... DIR...
 *                           keep every file of each KEEPDIR open (so its
 *                           inode stays in core), drop the caches once
 *                           untimed, then REPEATS times: stat the files of
 *                           the DIRs into core, wait a second, and time
 *                           `echo 2 >/proc/sys/vm/drop_caches`, printed as
 *                           "pass I EVICTED NANOSECONDS", EVICTED being the
 *                           drop in /proc/sys/fs/inode-nr
 *   openbench create [-n COUNT] [-r REPEATS] DIR
 *                           create COUNT new empty files in DIR and close
 *                           each (O_CREAT | O_EXCL | O_WRONLY), as the
 *                           caller: one untimed pass first, then REPEATS
 *                           timed passes, "pass I COUNT NANOSECONDS"; the
 *                           files are removed after each pass, untimed
 *
 * Folders are read once, before any timing, and files are opened relative
 * to a descriptor of their folder, so a timed pass walks one path component
 * per open. stat and read print the number of files they handled.
 * Exit: 0 done, 1 a file could not be handled, 2 bad usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct entry {
	int dirfd;
	char *name;
};

static struct entry *entries;
static size_t nentries, capacity;

static void usage(void)
{
	fputs("usage: openbench stat|read DIR...\n"
	      "       openbench time [-u UID] [-w] [-n MAX] [-r REPEATS] [-j THREADS] DIR...\n"
	      "       openbench evict [-n MAX] [-r REPEATS] [-k KEEPDIR]... DIR...\n"
	      "       openbench create [-n COUNT] [-r REPEATS] DIR\n",
	      stderr);
	exit(2);
}

static void add_entry(int dirfd, const char *name)
{
	if (nentries == capacity) {
		capacity = capacity ? capacity * 2 : 4096;
		entries = realloc(entries, capacity * sizeof(*entries));
		if (!entries) {
			perror("openbench: realloc");
			exit(1);
		}
	}
	entries[nentries].dirfd = dirfd;
	entries[nentries].name = strdup(name);
	if (!entries[nentries].name) {
		perror("openbench: strdup");
		exit(1);
	}
	nentries++;
}

/* Collect the regular entries of each folder, up to max (0: no limit). */
static void collect(char **dirs, int ndirs, size_t max)
{
	for (int i = 0; i < ndirs && (!max || nentries < max); i++) {
		int fd = open(dirs[i], O_RDONLY | O_DIRECTORY);
		DIR *d;
		struct dirent *de;

		if (fd < 0) {
			fprintf(stderr, "openbench: %s: %s\n", dirs[i], strerror(errno));
			exit(1);
		}
		d = fdopendir(dup(fd));
		if (!d) {
			fprintf(stderr, "openbench: %s: %s\n", dirs[i], strerror(errno));
			exit(1);
		}
		while ((de = readdir(d)) && (!max || nentries < max)) {
			if (de->d_name[0] == '.' && (!de->d_name[1] ||
			    (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			add_entry(fd, de->d_name);
		}
		closedir(d);
	}
}

static void fail(const struct entry *e, const char *what)
{
	fprintf(stderr, "openbench: %s %s: %s\n", what, e->name, strerror(errno));
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Open and close every file once, starting at entry @first */
static void open_close_all(int flags, size_t first)
{
	for (size_t n = 0; n < nentries; n++) {
		size_t i = (first + n) % nentries;
		int fd = openat(entries[i].dirfd, entries[i].name, flags);

		if (fd < 0)
			fail(&entries[i], "open");
		close(fd);
	}
}

/* -j: the threads of a pass wait at the barrier, then run together */
static pthread_barrier_t start;
static int thread_flags;

struct worker {
	pthread_t id;
	size_t first;
	long long t0, t1;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start);
	w->t0 = now_ns();
	open_close_all(thread_flags, w->first);
	w->t1 = now_ns();
	return NULL;
}

/* One pass on @threads threads: nanoseconds from the first start to the last end */
static long long timed_pass(int flags, int threads)
{
	struct worker w[threads];
	long long t0, t1;
	int rc;

	if (threads == 1) {
		t0 = now_ns();
		open_close_all(flags, 0);
		return now_ns() - t0;
	}
	thread_flags = flags;
	if (pthread_barrier_init(&start, NULL, threads + 1)) {
		perror("openbench: pthread_barrier_init");
		exit(1);
	}
	for (int t = 0; t < threads; t++) {
		w[t].first = nentries * t / threads;
		rc = pthread_create(&w[t].id, NULL, worker_run, &w[t]);
		if (rc) {
			fprintf(stderr, "openbench: pthread_create: %s\n", strerror(rc));
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	for (int t = 0; t < threads; t++)
		pthread_join(w[t].id, NULL);
	pthread_barrier_destroy(&start);
	t0 = w[0].t0;
	t1 = w[0].t1;
	for (int t = 1; t < threads; t++) {
		t0 = w[t].t0 < t0 ? w[t].t0 : t0;
		t1 = w[t].t1 > t1 ? w[t].t1 : t1;
	}
	return t1 - t0;
}

static long inodes_in_core(void)
{
	FILE *f = fopen("/proc/sys/fs/inode-nr", "r");
	long n = -1;

	if (!f || fscanf(f, "%ld", &n) != 1) {
		perror("openbench: /proc/sys/fs/inode-nr");
		exit(1);
	}
	fclose(f);
	return n;
}

static void stat_all(void)
{
	struct stat st;

	for (size_t i = 0; i < nentries; i++)
		if (fstatat(entries[i].dirfd, entries[i].name, &st, AT_SYMLINK_NOFOLLOW))
			fail(&entries[i], "stat");
}

/*
 * Write "2" to drop_caches, open as @fd: evict every unused dentry and
 * inode.  At offset 0 each time: sysctls take a number only from there.
 */
static void drop_caches(int fd)
{
	if (pwrite(fd, "2\n", 2, 0) != 2) {
		perror("openbench: drop_caches");
		exit(1);
	}
}

/*
 * evict: what freeing N in-core inodes costs while the files of @keep stay
 * open (their inodes, and any IMA state they have, stay too).  The timed
 * window is the write to drop_caches, which evicts every unused inode and
 * dentry; an LSM's work deferred to an RCU callback falls outside it.  The
 * first drop, untimed, takes what earlier steps left unused; the second of
 * sleep before each timed drop lets the RCU callbacks of the stats and of
 * the drop before run outside the window, not inside the next one.
 */
static int evict(char **keep, int nkeep, char **dirs, int ndirs, size_t max,
		 int repeats)
{
	struct rlimit rl;
	size_t kept;
	int fd;

	collect(keep, nkeep, 0);
	kept = nentries;
	rl.rlim_cur = rl.rlim_max = kept + 256;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("openbench: setrlimit");
		return 1;
	}
	for (size_t i = 0; i < kept; i++)
		if (openat(entries[i].dirfd, entries[i].name, O_RDONLY) < 0)
			fail(&entries[i], "open");
	nentries = 0;	/* the kept files stay open until exit */
	collect(dirs, ndirs, max);
	if (!nentries) {
		fputs("openbench: no files\n", stderr);
		return 1;
	}
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0) {
		perror("openbench: /proc/sys/vm/drop_caches");
		return 1;
	}
	drop_caches(fd);
	for (int r = 1; r <= repeats; r++) {
		long before, after;
		long long t0, ns;

		stat_all();
		sync();
		sleep(1);
		before = inodes_in_core();
		t0 = now_ns();
		drop_caches(fd);
		ns = now_ns() - t0;
		after = inodes_in_core();
		printf("pass %d %ld %lld\n", r, before - after, ns);
	}
	close(fd);
	return 0;
}

/*
 * create: what making a new file costs, all of it: the creating open, and
 * the close, where an appraising IMA hashes the new file and labels it
 * (and EVM adds its HMAC of the labels).
 */
static long long create_pass(int dirfd, size_t count, int timed)
{
	char name[32];
	long long t0 = now_ns(), ns;

	for (size_t i = 0; i < count; i++) {
		int fd;

		snprintf(name, sizeof(name), "c%06zu", i);
		fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			fprintf(stderr, "openbench: create %s: %s\n", name, strerror(errno));
			exit(1);
		}
		close(fd);
	}
	ns = now_ns() - t0;
	for (size_t i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "c%06zu", i);
		if (unlinkat(dirfd, name, 0)) {
			fprintf(stderr, "openbench: unlink %s: %s\n", name, strerror(errno));
			exit(1);
		}
	}
	return timed ? ns : 0;
}

static int create(const char *dir, size_t count, int repeats)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);

	if (dirfd < 0) {
		fprintf(stderr, "openbench: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	create_pass(dirfd, count, 0);	/* warm: the folder's blocks, the caches */
	for (int r = 1; r <= repeats; r++)
		printf("pass %d %zu %lld\n", r, count, create_pass(dirfd, count, 1));
	close(dirfd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;
	int opt, flags = O_RDONLY, repeats = 5, threads = 1, nkeep = 0;
	char *keep[64];
	long uid = -1;
	size_t max = 0;

	if (argc < 3)
		usage();
	mode = argv[1];
	if (!strcmp(mode, "stat") || !strcmp(mode, "read")) {
		collect(argv + 2, argc - 2, 0);
		for (size_t i = 0; i < nentries; i++) {
			struct stat st;
			char buf[4096];
			int fd;
			ssize_t n;

			if (mode[0] == 's') {
				if (fstatat(entries[i].dirfd, entries[i].name, &st,
					    AT_SYMLINK_NOFOLLOW))
					fail(&entries[i], "stat");
				continue;
			}
			fd = openat(entries[i].dirfd, entries[i].name, O_RDONLY);
			if (fd < 0)
				fail(&entries[i], "open");
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				;
			if (n < 0)
				fail(&entries[i], "read");
			close(fd);
		}
		printf("%zu\n", nentries);
		return 0;
	}
	if (strcmp(mode, "time") && strcmp(mode, "evict") && strcmp(mode, "create"))
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, mode[0] == 't' ? "u:wn:r:j:" :
			     mode[0] == 'e' ? "n:r:k:" : "n:r:")) != -1) {
		switch (opt) {
		case 'k':
			if (nkeep == (int)(sizeof(keep) / sizeof(keep[0])))
				usage();
			keep[nkeep++] = optarg;
			break;
		case 'u':
			uid = strtol(optarg, NULL, 10);
			break;
		case 'w':
			flags = O_RDWR;
			break;
		case 'n':
			max = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			repeats = atoi(optarg);
			break;
		case 'j':
			threads = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || repeats < 1 || threads < 1 || threads > 64)
		usage();
	if (mode[0] == 'e')
		return evict(keep, nkeep, argv + optind, argc - optind, max, repeats);
	if (mode[0] == 'c') {
		if (optind != argc - 1 || !max)
			usage();
		return create(argv[optind], max, repeats);
	}
	/* Drop root first: under tcb, root's opens are measured, others' not. */
	if (uid >= 0 && (setgid(uid) || setuid(uid))) {
		perror("openbench: setuid");
		return 1;
	}
	collect(argv + optind, argc - optind, max);
	if (!nentries) {
		fputs("openbench: no files\n", stderr);
		return 1;
	}
	open_close_all(flags, 0);	/* warm: dentries, inodes, first measurement */
	for (int r = 1; r <= repeats; r++) {
		long long ns = timed_pass(flags, threads);

		printf("pass %d %zu %lld\n", r, nentries * threads, ns);
	}
	return 0;
}
