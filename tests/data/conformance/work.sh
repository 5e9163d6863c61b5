# The workload traced by strace (generate.sh): files made, copied, read,
# moved and removed by coreutils under /tmp/iotape-conf/run.
cd /tmp/iotape-conf/run || exit 1
dd if=/dev/urandom of=a.bin bs=4096 count=4 status=none
dd if=a.bin of=b.bin bs=1000 status=none
cp a.bin c.bin
cat b.bin >/dev/null
mkdir -p sub
mv c.bin sub/c.bin
rm b.bin
