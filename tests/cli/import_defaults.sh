#!/bin/sh
# import fills the columns a hand-written CSV leaves out the way the
# program would have: pid 1, tid = pid, fds lowest-free from 3, offsets
# following the file position, ret = size for reads and writes.
. "$(dirname "$0")/lib.sh"

cat >"$T/in.csv" <<'EOT'
ts_ns,op,path,size
1000,openat,/data/a,0
2000,read,/data/a,4096
3000,read,/data/a,100
4000,openat,/data/b,0
5000,pread64,/data/b,512
6000,write,/data/b,10
7000,close,/data/a,0
8000,openat,/data/c,0
9000,read,/data/c,1
10000,newstat,/data/a,0
EOT

cat >"$T/want.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1000,1,1,openat,/data/a,-1,0,0,3,0,1,0x0,,-1,0,0
2000,1,1,read,/data/a,3,0,4096,4096,0,1,0x0,,-1,0,0
3000,1,1,read,/data/a,3,4096,100,100,0,1,0x0,,-1,0,0
4000,1,1,openat,/data/b,-1,0,0,4,0,2,0x0,,-1,0,0
5000,1,1,pread64,/data/b,4,0,512,512,0,2,0x0,,-1,0,0
6000,1,1,write,/data/b,4,0,10,10,0,2,0x0,,-1,0,0
7000,1,1,close,/data/a,3,0,0,0,0,1,0x0,,-1,0,0
8000,1,1,openat,/data/c,-1,0,0,3,0,3,0x0,,-1,0,0
9000,1,1,read,/data/c,3,0,1,1,0,3,0x0,,-1,0,0
10000,1,1,newstat,/data/a,-1,0,0,0,0,1,0x0,,-1,0,0
EOT
ok "$IOTAPE" import -o "$T/t.tape" "$T/in.csv"
ok "$IOTAPE" dump --format csv -o "$T/got.csv" "$T/t.tape"
same "$T/want.csv" "$T/got.csv"

# with pid and fd columns: fds are per pid; lseek's ret (0) sets the
# position back; an empty path stays empty
cat >"$T/in2.csv" <<'EOT'
ts_ns,pid,op,fd,path,size
1,10,openat,-100,/m/x,0
2,20,openat,-100,/m/y,0
3,10,read,3,,8
4,20,read,3,,16
5,10,lseek,3,,0
6,10,read,3,,8
EOT
ok "$IOTAPE" import -o "$T/t2.tape" "$T/in2.csv"
ok "$IOTAPE" dump --format csv "$T/t2.tape"
cat >"$T/want2.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1,10,10,openat,/m/x,-100,0,0,3,0,1,0x0,,-1,0,0
2,20,20,openat,/m/y,-100,0,0,3,0,2,0x0,,-1,0,0
3,10,10,read,,3,0,8,8,0,0,0x0,,-1,0,0
4,20,20,read,,3,0,16,16,0,0,0x0,,-1,0,0
5,10,10,lseek,,3,0,0,0,0,0,0x0,,-1,0,0
6,10,10,read,,3,0,8,8,0,0,0x0,,-1,0,0
EOT
same "$T/want2.csv" "$T/out"

# an fd nobody opened: path "", offset 0
cat >"$T/in3b.csv" <<'EOT'
ts_ns,op,fd,size
1,read,3,8
EOT
ok "$IOTAPE" import -o "$T/t3.tape" "$T/in3b.csv"
ok "$IOTAPE" dump --format csv "$T/t3.tape"
[ "$(sed -n 2p "$T/out")" = "1,1,1,read,,3,0,8,8,0,0,0x0,,-1,0,0" ] ||
	fail "read of an unknown fd: $(sed -n 2p "$T/out")"

# an fd op whose path was never opened is an error that says what to add
printf 'ts_ns,op,path,size\n1,read,/never/opened,8\n' >"$T/bad.csv"
err_line 1 "iotape import: " "bad.csv:2:" "$IOTAPE" import -o "$T/bad.tape" "$T/bad.csv"
grep -q "fd column" "$T/err" || fail "no hint: $(cat "$T/err")"
[ -e "$T/bad.tape" ] && fail "bad.tape left behind"

# copies: the output side from fd2's open (path2, file_id2, offset2 at
# its position, which the copy moves); the input side like a read at fd's
# position, which it does not move
cat >"$T/in4.csv" <<'EOT'
ts_ns,op,path,fd,fd2,size
1,openat,/c/in,-1,-1,0
2,openat,/c/out,-1,-1,0
3,write,/c/out,4,-1,100
4,sendfile,/c/in,3,4,4096
5,copy_file_range,/c/in,3,4,10
6,splice,/c/in,3,9,7
7,read,/c/in,3,-1,1
EOT
ok "$IOTAPE" import -o "$T/t4.tape" "$T/in4.csv"
ok "$IOTAPE" dump --format csv "$T/t4.tape"
cat >"$T/want4.csv" <<'EOT'
ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,file_id2,offset2
1,1,1,openat,/c/in,-1,0,0,3,0,1,0x0,,-1,0,0
2,1,1,openat,/c/out,-1,0,0,4,0,2,0x0,,-1,0,0
3,1,1,write,/c/out,4,0,100,100,0,2,0x0,,-1,0,0
4,1,1,sendfile,/c/in,3,0,4096,4096,0,1,0x0,/c/out,4,2,100
5,1,1,copy_file_range,/c/in,3,0,10,10,0,1,0x0,/c/out,4,2,4196
6,1,1,splice,/c/in,3,0,7,7,0,1,0x0,,9,0,0
7,1,1,read,/c/in,3,0,1,1,0,1,0x0,,-1,0,0
EOT
same "$T/want4.csv" "$T/out"

# other tables: absent columns are 0 / ""
printf 'ts_ns,comm\n5,worker\n' >"$T/p.csv"
ok "$IOTAPE" import -t process -o "$T/p.tape" "$T/p.csv"
ok "$IOTAPE" dump -F csv -t process "$T/p.tape"
[ "$(sed -n 2p "$T/out")" = "5,0,0,0,worker,0,0," ] || fail "process defaults: $(sed -n 2p "$T/out")"
exit 0
