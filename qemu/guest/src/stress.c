// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress: hammer IMA's open, measurement and iint paths from many threads
 * for a bounded time, and remember every distinct content that this (root)
 * process read from a file the tcb policy measures.
 *
 *   stress --dir DIR --record REC [--seconds N] [--files N] [--threads N]
 *   stress --noop          exit 0 at once (the program that is executed)
 *
 * DIR (on ext4, measured) gets three sets of files:
 *   DIR/locked/fNN  opened under a per-file reader/writer lock of this
 *                   program: readers never overlap a writer, so whatever
 *                   they read must be in the measurement log as it is;
 *   DIR/racy/fNN    read, written, truncated and re-created with no lock:
 *                   IMA may log a violation (open-writers, ToMToU) instead;
 *   DIR/exe/pNN     copies of this program, executed and re-created.
 * Each distinct (path, content) read or executed is copied to REC/NNNNNN
 * (REC must be on tmpfs or ramfs, which tcb does not measure) and listed
 * in REC/index as "NNNNNN KIND PATH". Hashing happens later, outside.
 *
 * Other threads stat the files and write /proc/sys/vm/drop_caches, so
 * inodes (and their iints) are evicted and come back under load.
 *
 * stdout: one "name count" line per operation, "unexpected N", and "total N"
 * (the file operations: opens, mmaps, executions, re-creations).
 * Exit: 0 if no operation failed unexpectedly, 1 if one did, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES	256
#define MAX_CONTENT	(16 * 1024)
#define MAX_RECORDS	200000
#define MAX_RECORD_BYTES (256UL << 20)	/* of the guest's RAM, on tmpfs */
#define N_EXE		3

enum op {
	OP_READ, OP_RDWR, OP_WRITE, OP_RECREATE, OP_MMAP_EXEC, OP_EXEC,
	OP_EXE_RECREATE, OP_RACY_READ, OP_RACY_WRITE, OP_RACY_RDWR,
	OP_RACY_RECREATE, OP_STAT, OP_DROP_CACHES, OP_EXEC_BUSY,
	OP_RACY_ENOENT, OP_RECORDED, OP_UNRECORDED, OP_UNEXPECTED, N_OPS
};
static const char *const op_name[N_OPS] = {
	"read", "rdwr", "write", "recreate", "mmap_exec", "exec",
	"exe_recreate", "racy_read", "racy_write", "racy_rdwr",
	"racy_recreate", "stat", "drop_caches", "exec_busy",
	"racy_enoent", "recorded", "unrecorded", "unexpected"
};
static atomic_ulong counts[N_OPS];

static const char *dir, *rec;
static int n_files = 16;
static atomic_int stop;
static atomic_ulong generation;
static pthread_rwlock_t locks[MAX_FILES], exe_locks[N_EXE];
static char *self_image;
static size_t self_size;

static void die(const char *what, const char *path);

static void count(enum op op) { atomic_fetch_add(&counts[op], 1); }

/* A failure the kernel must not cause: say what and count it. */
static void unexpected(const char *what, const char *path)
{
	/* the first few are enough to see what goes wrong */
	if (atomic_fetch_add(&counts[OP_UNEXPECTED], 1) < 20)
		fprintf(stderr, "stress: %s %s: %s\n", what, path, strerror(errno));
}

static void usage(void)
{
	fputs("usage: stress --dir DIR --record REC [--seconds N] [--files N] [--threads N]\n"
	      "       stress --noop\n", stderr);
	exit(2);
}

/* xorshift, one state per thread */
static unsigned int rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (unsigned int)(*s >> 11);
}

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* The set of (path, content) pairs already recorded: open addressing. */
static uint64_t *seen;
static size_t seen_slots;
static unsigned long n_records, record_bytes;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *index_file;

static void record(const char *kind, const char *path, const void *buf, size_t n)
{
	uint64_t key = fnv1a(buf, n, fnv1a(path, strlen(path), 0xcbf29ce484222325ULL));
	size_t i;
	char name[4096];
	int fd;

	key |= 1;	/* 0 marks a free slot */
	pthread_mutex_lock(&seen_lock);
	for (i = key % seen_slots; seen[i]; i = (i + 1) % seen_slots)
		if (seen[i] == key)
			goto out;
	if (n_records >= MAX_RECORDS || record_bytes + n > MAX_RECORD_BYTES) {
		count(OP_UNRECORDED);
		goto out;
	}
	seen[i] = key;
	snprintf(name, sizeof(name), "%s/%06lu", rec, n_records);
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n || close(fd)) {
		unexpected("record", name);
		goto out;
	}
	fprintf(index_file, "%06lu %s %s\n", n_records, kind, path);
	n_records++;
	record_bytes += n;
	count(OP_RECORDED);
out:
	pthread_mutex_unlock(&seen_lock);
}

/* New content: a unique first line, then filler of a varying length. */
static size_t make_content(char *buf, const char *path, uint64_t *rs)
{
	unsigned long gen = atomic_fetch_add(&generation, 1);
	size_t n = (size_t)snprintf(buf, MAX_CONTENT, "ima-slim stress %s generation %lu\n",
				    path, gen);
	size_t len = n + rnd(rs) % (MAX_CONTENT / 4);

	while (n < len) {
		buf[n] = (char)('a' + (gen + n) % 26);
		n++;
		if (n % 64 == 0 && n < len)
			buf[n++] = '\n';
	}
	return n;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static ssize_t read_all(int fd, char *buf)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, buf + n, MAX_CONTENT - n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0 || n + (size_t)r == MAX_CONTENT)
			return (ssize_t)(n + (size_t)r);
		n += (size_t)r;
	}
}

static void path_of(char *p, size_t size, const char *set, int i)
{
	snprintf(p, size, "%s/%s/%c%02d", dir, set, strcmp(set, "exe") ? 'f' : 'p', i);
}

/* Open PATH for write with FLAGS and MODE, write N bytes of BUF, close. */
static int write_file(const char *path, int flags, mode_t mode, const void *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, mode);

	if (fd < 0)
		return -1;
	if (write_all(fd, buf, n)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Write fresh content to PATH (O_TRUNC, or O_EXCL after an unlink). */
static int rewrite(const char *path, int flags, char *buf, uint64_t *rs)
{
	size_t n = make_content(buf, path, rs);

	return write_file(path, flags, 0644, buf, n);
}

static int write_exe(const char *path)
{
	if (unlink(path) && errno != ENOENT)
		return -1;
	return write_file(path, O_CREAT | O_EXCL, 0755, self_image, self_size);
}

/* Threads on the locked set: what they read is what IMA must have measured. */
static void locked_op(uint64_t *rs, char *buf, int kind)
{
	int i = (int)(rnd(rs) % (unsigned int)n_files);
	char path[4096];
	ssize_t n;
	int fd;

	path_of(path, sizeof(path), "locked", i);
	switch (kind) {
	case OP_READ:
	case OP_MMAP_EXEC:
		pthread_rwlock_rdlock(&locks[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			unexpected("open for read", path);
			break;
		}
		if (kind == OP_READ) {
			n = read_all(fd, buf);
		} else {
			struct stat st;
			void *m = MAP_FAILED;

			n = -1;
			if (!fstat(fd, &st) && st.st_size > 0 && st.st_size <= MAX_CONTENT)
				m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC,
					 MAP_PRIVATE, fd, 0);
			if (m != MAP_FAILED) {
				memcpy(buf, m, (size_t)st.st_size);
				n = st.st_size;
				munmap(m, (size_t)st.st_size);
			}
		}
		if (n < 0)
			unexpected(kind == OP_READ ? "read" : "mmap PROT_EXEC", path);
		close(fd);
		if (n >= 0) {
			record("locked", path, buf, (size_t)n);
			count(kind);
		}
		break;
	case OP_RDWR:
		pthread_rwlock_wrlock(&locks[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			unexpected("open read-write", path);
			break;
		}
		n = read_all(fd, buf);
		if (n < 0) {
			unexpected("read", path);
		} else {
			record("locked", path, buf, (size_t)n);
			n = (ssize_t)make_content(buf, path, rs);
			if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) ||
			    write_all(fd, buf, (size_t)n))
				unexpected("rewrite", path);
			else
				count(OP_RDWR);
		}
		if (close(fd))
			unexpected("close", path);
		break;
	case OP_WRITE:
		pthread_rwlock_wrlock(&locks[i]);
		if (rewrite(path, O_TRUNC, buf, rs))
			unexpected("write", path);
		else
			count(OP_WRITE);
		break;
	case OP_RECREATE:
		pthread_rwlock_wrlock(&locks[i]);
		if (unlink(path) || rewrite(path, O_CREAT | O_EXCL, buf, rs))
			unexpected("unlink and re-create", path);
		else
			count(OP_RECREATE);
		break;
	}
	pthread_rwlock_unlock(&locks[i]);
}

/*
 * Executing: a thread that forks copies the descriptor table, so its child
 * would hold, until it execs, the files other threads have open, and IMA
 * would rightly log violations on the locked set. So each executing thread
 * asks a spawner of its own, forked before any file is open, over a pipe.
 */
#define N_SPAWNERS 2
static int spawn_req[N_SPAWNERS], spawn_rep[N_SPAWNERS];

static void spawner(int req, int rep)
{
	int i, status;

	while (read(req, &i, sizeof(i)) == sizeof(i)) {
		char path[4096];
		pid_t pid;

		path_of(path, sizeof(path), "exe", i);
		pid = fork();
		if (pid == 0) {
			char *argv[] = { path, "--noop", NULL };

			execv(path, argv);
			_exit(errno == ETXTBSY ? 125 : 126);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			status = -1;
		if (write(rep, &status, sizeof(status)) != sizeof(status))
			break;
	}
	_exit(0);
}

static void start_spawners(void)
{
	int i, req[2], rep[2];

	for (i = 0; i < N_SPAWNERS; i++) {
		if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
			die("pipe", "");
		switch (fork()) {
		case -1:
			die("fork", "spawner");
			break;
		case 0:
			spawner(req[0], rep[1]);
			break;
		}
		close(req[0]);
		close(rep[1]);
		spawn_req[i] = req[1];
		spawn_rep[i] = rep[0];
	}
}

static void exec_op(uint64_t *rs, int kind, int spawner_id)
{
	int i = (int)(rnd(rs) % N_EXE), status;
	char path[4096];

	path_of(path, sizeof(path), "exe", i);
	if (kind == OP_EXE_RECREATE) {
		pthread_rwlock_wrlock(&exe_locks[i]);
		if (write_exe(path))
			unexpected("re-create executable", path);
		else
			count(OP_EXE_RECREATE);
		pthread_rwlock_unlock(&exe_locks[i]);
		return;
	}
	pthread_rwlock_rdlock(&exe_locks[i]);
	if (write(spawn_req[spawner_id], &i, sizeof(i)) != sizeof(i) ||
	    read(spawn_rep[spawner_id], &status, sizeof(status)) != sizeof(status) ||
	    status == -1) {
		unexpected("ask the spawner to execute", path);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		record("exe", path, self_image, self_size);
		count(OP_EXEC);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 125) {
		count(OP_EXEC_BUSY);	/* should not happen now; counted */
	} else {
		errno = 0;
		unexpected("execute", path);
	}
	pthread_rwlock_unlock(&exe_locks[i]);
}

/* The racy set: no locks; a file may be missing for a moment. */
static void racy_op(uint64_t *rs, char *buf)
{
	int i = (int)(rnd(rs) % (unsigned int)n_files), fd;
	unsigned int what = rnd(rs) % 8;
	char path[4096];
	ssize_t n;

	path_of(path, sizeof(path), "racy", i);
	if (what < 4) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			goto err;
		n = read_all(fd, buf);
		close(fd);
		if (n < 0)
			goto err;
		record("racy", path, buf, (size_t)n);
		count(OP_RACY_READ);
	} else if (what < 6) {
		if (rewrite(path, O_TRUNC, buf, rs))
			goto err;
		count(OP_RACY_WRITE);
	} else if (what < 7) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			goto err;
		n = read_all(fd, buf);
		/*
		 * IMA counts only read-only opens as readers: a writer that
		 * changes the file under this descriptor raises no violation,
		 * so what is read here is recorded but cannot be judged.
		 */
		if (n >= 0)
			record("racy_rdwr", path, buf, (size_t)n);
		n = (ssize_t)make_content(buf, path, rs);
		if (write_all(fd, buf, (size_t)n)) {
			close(fd);
			goto err;
		}
		close(fd);
		count(OP_RACY_RDWR);
	} else {
		if (unlink(path) && errno != ENOENT)
			goto err;
		if (rewrite(path, O_CREAT | O_EXCL, buf, rs) && errno != EEXIST)
			goto err;
		count(OP_RACY_RECREATE);
	}
	return;
err:
	if (errno == ENOENT)
		count(OP_RACY_ENOENT);	/* unlinked by another thread meanwhile */
	else
		unexpected("racy operation on", path);
}

static void stat_op(uint64_t *rs)
{
	static const char *const sets[] = { "locked", "racy", "exe" };
	int set = (int)(rnd(rs) % 3);
	char path[4096];
	struct stat st;

	path_of(path, sizeof(path), sets[set],
		(int)(rnd(rs) % (set == 2 ? N_EXE : (unsigned int)n_files)));
	/* a file being re-created is missing for a moment */
	if (stat(path, &st) && errno != ENOENT)
		unexpected("stat", path);
	else
		count(OP_STAT);
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "3\n", 2) != 2)
		unexpected("write", "/proc/sys/vm/drop_caches");
	else
		count(OP_DROP_CACHES);
	if (fd >= 0)
		close(fd);
}

/* Thread roles, in start order; --threads N starts the first N (min 8). */
enum role { R_READ, R_WRITE, R_RACY, R_MMAP, R_EXEC, R_STAT, R_DROP, R_MIXED };
static const enum role roles[] = {
	R_READ, R_WRITE, R_RACY, R_MMAP, R_EXEC, R_STAT, R_DROP, R_MIXED,
	R_READ, R_RACY, R_WRITE, R_READ, R_MMAP, R_EXEC, R_MIXED, R_STAT,
};

static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	enum role role = roles[id % (sizeof(roles) / sizeof(roles[0]))];
	uint64_t rs = 0x9e3779b97f4a7c15ULL * (id + 1);
	char *buf = malloc(MAX_CONTENT);
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	unsigned int r;

	if (!buf)
		return NULL;
	while (!atomic_load(&stop)) {
		switch (role) {
		case R_READ:
			locked_op(&rs, buf, OP_READ);
			break;
		case R_WRITE:
			r = rnd(&rs) % 4;
			locked_op(&rs, buf, r == 0 ? OP_RECREATE : r == 1 ? OP_RDWR : OP_WRITE);
			break;
		case R_RACY:
			racy_op(&rs, buf);
			break;
		case R_MMAP:
			locked_op(&rs, buf, OP_MMAP_EXEC);
			break;
		case R_EXEC:
			exec_op(&rs, rnd(&rs) % 8 ? OP_EXEC : OP_EXE_RECREATE,
				(int)(id % 2));
			break;
		case R_STAT:
			stat_op(&rs);
			break;
		case R_DROP:
			drop_caches();
			nanosleep(&pause, NULL);
			break;
		case R_MIXED:
			r = rnd(&rs) % 6;
			if (r < 2)
				locked_op(&rs, buf, OP_READ);
			else if (r < 3)
				locked_op(&rs, buf, OP_WRITE);
			else if (r < 4)
				racy_op(&rs, buf);
			else if (r < 5)
				stat_op(&rs);
			else
				locked_op(&rs, buf, OP_MMAP_EXEC);
			break;
		}
	}
	free(buf);
	return NULL;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "stress: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void load_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		die("open", "/proc/self/exe");
	self_size = (size_t)st.st_size;
	self_image = malloc(self_size);
	if (!self_image || read(fd, self_image, self_size) != (ssize_t)self_size)
		die("read", "/proc/self/exe");
	close(fd);
}

static void setup(void)
{
	char path[4096], *buf = malloc(MAX_CONTENT);
	static const char *const sets[] = { "locked", "racy", "exe" };
	uint64_t rs = 42;
	int i;

	if (!buf)
		die("malloc", "");
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sets[i]);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir", path);
	}
	for (i = 0; i < n_files; i++) {
		path_of(path, sizeof(path), "locked", i);
		if (rewrite(path, O_CREAT | O_TRUNC, buf, &rs))
			die("create", path);
		path_of(path, sizeof(path), "racy", i);
		if (rewrite(path, O_CREAT | O_TRUNC, buf, &rs))
			die("create", path);
		pthread_rwlock_init(&locks[i], NULL);
	}
	for (i = 0; i < N_EXE; i++) {
		path_of(path, sizeof(path), "exe", i);
		if (write_exe(path))
			die("create", path);
		pthread_rwlock_init(&exe_locks[i], NULL);
	}
	free(buf);
	snprintf(path, sizeof(path), "%s/index", rec);
	index_file = fopen(path, "we");
	if (!index_file)
		die("create", path);
	seen_slots = MAX_RECORDS * 2 + 1;
	seen = calloc(seen_slots, sizeof(*seen));
	if (!seen)
		die("calloc", "record set");
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "stress: '%s' is not a number in [%ld, %ld]\n", s, min, max);
		exit(2);
	}
	return v;
}

static unsigned long total_ops(void)
{
	unsigned long t = 0;
	int i;

	/* file operations: stat and drop_caches are background load */
	for (i = 0; i < OP_STAT; i++)
		t += atomic_load(&counts[i]);
	return t;
}

int main(int argc, char **argv)
{
	long seconds = 60, threads = 16, t;
	pthread_t tid[64];
	time_t start, now, last;
	int i;

	if (argc == 2 && !strcmp(argv[1], "--noop"))
		return 0;
	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--dir"))
			dir = argv[++i];
		else if (!strcmp(argv[i], "--record"))
			rec = argv[++i];
		else if (!strcmp(argv[i], "--seconds"))
			seconds = number(argv[++i], 1, 86400);
		else if (!strcmp(argv[i], "--files"))
			n_files = (int)number(argv[++i], 1, MAX_FILES);
		else if (!strcmp(argv[i], "--threads"))
			threads = number(argv[++i], 8, 64);
		else
			usage();
	}
	if (!dir || !rec)
		usage();
	signal(SIGPIPE, SIG_IGN);
	load_self();
	start_spawners();	/* before any file of the test is open */
	setup();

	start = last = time(NULL);
	for (t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, worker, (void *)(uintptr_t)t)) {
			fprintf(stderr, "stress: cannot start thread %ld\n", t);
			return 2;
		}
	while ((now = time(NULL)) - start < seconds) {
		sleep(1);
		if (time(NULL) - last >= 10) {
			last = time(NULL);
			fprintf(stderr, "stress: %lds of %lds, %lu operations, %lu unexpected\n",
				(long)(last - start), seconds, total_ops(),
				atomic_load(&counts[OP_UNEXPECTED]));
		}
	}
	atomic_store(&stop, 1);
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	fclose(index_file);

	printf("seconds %ld\nthreads %ld\nfiles %d\n", (long)(time(NULL) - start), threads, n_files);
	for (i = 0; i < N_OPS; i++)
		printf("%s %lu\n", op_name[i], atomic_load(&counts[i]));
	printf("total %lu\n", total_ops());
	return atomic_load(&counts[OP_UNEXPECTED]) ? 1 : 0;
}
