#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kline_table.sh - the values at kernel source lines, perf probe against
# perf-run on the same guest kernel and workload, as docs/conformance.md's
# "Kernel source lines" table (run in the test-kernel guest:
#   KERNEL_GUEST_SCRIPT=tests/kernel/scripts/kline_table.sh \
#   KERNEL_VERSIONS=6.12.118+deb12-amd64 tests/kernel/run.sh).
# Line numbers are of 6.12's fs/read_write.c and fs/open.c, and of its 9p
# modules' sources.  Exit status:
# the number of points whose values differ.
S=tests/kernel/scripts/kline_values.sh
DD='dd if=/dev/zero of=/dev/null bs=4097 count=3 status=none'
CAT='cat /etc/hostname'
bad=0
echo "kernel $(uname -r), $(perf version)"
echo "| point | perf probe / perf-run | hits (perf probe / perf-run) | perf probe's first values | perf-run's | all equal |"
echo "|---|---|---|---|---|---|"
run() {
	"$S" -t "$@" >/tmp/kl_out 2>&1 || bad=$((bad + 1))
	grep '^|' /tmp/kl_out
	grep -v '^|' /tmp/kl_out | sed 's/^/    /'
}
run vfs_read:8 "$DD" 'count=count|args.count' 'flags=file->f_flags|args.file->f_flags' \
	'mode=file->f_mode|args.file->f_mode' 'ino=file->f_inode->i_ino|args.file->f_inode->i_ino'
run vfs_read:23 "$DD" 'ret=ret|args.ret'
run ksys_read:12 "$DD" 'ret=ret|args.ret' 'pos=pos|args.pos'
run new_sync_read:10 "$DD" 'len=len|args.len' 'kpos=kiocb.ki_pos|args.kiocb.ki_pos' \
	'icount=iter.count|args.iter.count'
run read_write.c:557 "$DD" 'count=count|args.count'
run do_sys_openat2:14 "$CAT" 'dfd=dfd|args.dfd' 'flags=how->flags|args.how->flags' \
	'name=tmp->name:string|str(args.tmp->name)'
run do_sys_openat2:24 "$CAT" 'fd=fd|args.fd' 'name=tmp->name:string|str(args.tmp->name)'
# modules (perf probe -m with the module's debuginfo): 6.12's fs/9p/vfs_file.c
# and net/9p/client.c; a global of a module's .rodata, and one of vmlinux
run vfs_read:8 "$CAT" 'llseek=generic_ro_fops.llseek|args.generic_ro_fops.llseek'
run 9p:v9fs_file_open:19 "$CAT" 'flags=file->f_flags|args.file->f_flags' \
	'ino=inode->i_ino|args.inode->i_ino' 'omode=omode|args.omode' \
	'op=v9fs_file_operations_dotl.open|args.v9fs_file_operations_dotl.open'
run 9p:vfs_file.c:76 "$CAT" 'omode=omode|args.omode' 'mode=fid->mode|args.fid->mode'
run 9pnet:p9_client_open:15 "$CAT" 'mode=mode|args.mode' 'fmode=fid->mode|args.fid->mode'
exit $bad
