// SPDX-License-Identifier: GPL-2.0-only
// leveldb_work.cc - the workload of leveldb in tests/dwarf/realcode.sh:
// writes, batches, reads, an iterator, a snapshot and a compaction of a
// database in DIR (emptied first, removed last), the same each run.
//   leveldb_work DIR
#include <cstdio>
#include <dirent.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "leveldb/db.h"
#include "leveldb/write_batch.h"

static std::string key(int i)
{
	char b[32];
	std::snprintf(b, sizeof b, "key%06d", i);
	return b;
}

static int fail(const leveldb::Status &s)
{
	std::fprintf(stderr, "leveldb_work: %s\n", s.ToString().c_str());
	return 1;
}

// DIR made and emptied before leveldb allocates anything: a run that gdb
// killed leaves its files, and leveldb's listing of them would move every
// later heap address of the next run (values compared between runs).
static void empty_dir(const char *dir)
{
	mkdir(dir, 0700);
	DIR *d = opendir(dir);
	if (!d)
		return;
	while (struct dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	empty_dir(argv[1]);
	leveldb::Options opt;
	opt.create_if_missing = true;
	leveldb::DestroyDB(argv[1], opt);
	leveldb::DB *db;
	leveldb::Status s = leveldb::DB::Open(opt, argv[1], &db);
	if (!s.ok())
		return fail(s);
	for (int i = 0; i < 3000; i++) {
		s = db->Put(leveldb::WriteOptions(), key(i), std::string(i % 97 + 1, 'a' + i % 26));
		if (!s.ok())
			return fail(s);
	}
	leveldb::WriteBatch batch;
	for (int i = 0; i < 3000; i += 7)
		batch.Delete(key(i));
	batch.Put("extra", "value");
	s = db->Write(leveldb::WriteOptions(), &batch);
	if (!s.ok())
		return fail(s);
	const leveldb::Snapshot *snap = db->GetSnapshot();
	db->Put(leveldb::WriteOptions(), key(1), "changed");
	std::string v;
	long total = 0;
	for (int i = 0; i < 3000; i += 13)
		if (db->Get(leveldb::ReadOptions(), key(i), &v).ok())
			total += v.size();
	leveldb::ReadOptions at;
	at.snapshot = snap;
	db->Get(at, key(1), &v);
	total += v.size();
	db->ReleaseSnapshot(snap);
	db->CompactRange(nullptr, nullptr);
	int n = 0;
	leveldb::Iterator *it = db->NewIterator(leveldb::ReadOptions());
	for (it->Seek("key001000"); it->Valid() && n < 500; it->Next())
		total += it->value().size() + n++;
	delete it;
	for (int i = 5; i < 3000; i += 101)
		if (db->Get(leveldb::ReadOptions(), key(i), &v).ok())
			total += v.size();
	delete db;
	leveldb::DestroyDB(argv[1], opt);
	std::printf("leveldb_work: %d %ld\n", n, total);
	return 0;
}
