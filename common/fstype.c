/* SPDX-License-Identifier: MIT */
/*
 * fstype.c - the table of fstype.h: file system magics, their names, and
 * whether each is memory (or a pseudo file system) or storage.
 *
 * Magics are linux/magic.h's and, for file systems outside the kernel
 * tree or without a uapi constant, their own sources' (mqueue, configfs,
 * pidfs, rpc_pipefs, nfsd, aio, lustre, gpfs, zfs, beegfs, ...).  They
 * are spelled out here rather than taken from linux/magic.h, which lacks
 * many and differs between kernel headers.  A name appears once per
 * magic; two magics (afs) may share a name.
 */
#include <stddef.h>
#include <string.h>
#include "fstype.h"

static const struct fstype {
	uint32_t magic;
	uint8_t memory;
	const char *name;
} types[] = {
	/* memory and pseudo file systems */
	{ 0x01021994, 1, "tmpfs" },	/* also devtmpfs, /dev/shm, /run */
	{ 0x858458f6, 1, "ramfs" },
	{ 0x958458f6, 1, "hugetlbfs" },
	{ 0x00009fa0, 1, "proc" },
	{ 0x62656572, 1, "sysfs" },
	{ 0x00001cd1, 1, "devpts" },
	{ 0x0027e0eb, 1, "cgroup" },
	{ 0x63677270, 1, "cgroup2" },
	{ 0x19800202, 1, "mqueue" },
	{ 0x64626720, 1, "debugfs" },
	{ 0x74726163, 1, "tracefs" },
	{ 0xcafe4a11, 1, "bpf" },
	{ 0x73636673, 1, "securityfs" },
	{ 0xf97cff8c, 1, "selinuxfs" },
	{ 0x43415d53, 1, "smackfs" },
	{ 0x5a3c69f0, 1, "apparmorfs" },
	{ 0x62656570, 1, "configfs" },
	{ 0x65735543, 1, "fusectl" },
	{ 0x42494e4d, 1, "binfmt_misc" },
	{ 0x6165676c, 1, "pstore" },
	{ 0xde5e81e4, 1, "efivarfs" },
	{ 0x00000187, 1, "autofs" },
	{ 0x67596969, 1, "rpc_pipefs" },
	{ 0x6e667364, 1, "nfsd" },
	{ 0x6c6f6f70, 1, "binder" },
	{ 0x07655821, 1, "resctrl" },
	{ 0x00009fa1, 1, "openpromfs" },
	{ 0x00009fa2, 1, "usbdevfs" },
	{ 0xabba1974, 1, "xenfs" },
	{ 0x50495045, 1, "pipefs" },
	{ 0x534f434b, 1, "sockfs" },
	{ 0x09041934, 1, "anon_inodefs" },
	{ 0x6e736673, 1, "nsfs" },
	{ 0x50494446, 1, "pidfs" },
	{ 0x444d4142, 1, "dmabuf" },
	{ 0x5345434d, 1, "secretmem" },
	{ 0x62646576, 1, "bdev" },
	{ 0xa10a10a1, 1, "aio" },
	{ 0x64646178, 1, "dax" },
	{ 0x454d444d, 1, "devmem" },
	/* disk file systems and read-only images */
	{ 0x0000ef53, 0, "ext4" },	/* ext2 and ext3 too */
	{ 0x58465342, 0, "xfs" },
	{ 0x9123683e, 0, "btrfs" },
	{ 0xf2f52010, 0, "f2fs" },
	{ 0xca451a4e, 0, "bcachefs" },
	{ 0x3153464a, 0, "jfs" },
	{ 0x52654973, 0, "reiserfs" },
	{ 0x00003434, 0, "nilfs2" },
	{ 0x2fc12fc1, 0, "zfs" },
	{ 0x00004d44, 0, "vfat" },	/* msdos too */
	{ 0x2011bab0, 0, "exfat" },
	{ 0x5346544e, 0, "ntfs" },
	{ 0x00004244, 0, "hfs" },
	{ 0x0000482b, 0, "hfsplus" },
	{ 0x15013346, 0, "udf" },
	{ 0x5a4f4653, 0, "zonefs" },
	{ 0x7461636f, 0, "ocfs2" },
	{ 0x01161970, 0, "gfs2" },
	{ 0x000072b6, 0, "jffs2" },
	{ 0x24051905, 0, "ubifs" },
	{ 0xa501fcf5, 0, "vxfs" },
	{ 0x00009660, 0, "iso9660" },
	{ 0x73717368, 0, "squashfs" },
	{ 0xe0f5e1e2, 0, "erofs" },
	{ 0x28cd3d45, 0, "cramfs" },
	{ 0x00007275, 0, "romfs" },
	/* network, parallel and shared file systems */
	{ 0x00006969, 0, "nfs" },
	{ 0xff534d42, 0, "cifs" },
	{ 0xfe534d42, 0, "smb2" },
	{ 0x00c36400, 0, "ceph" },
	{ 0x0bd00bd0, 0, "lustre" },
	{ 0x47504653, 0, "gpfs" },
	{ 0x19830326, 0, "beegfs" },
	{ 0x6b414653, 0, "afs" },	/* the kernel's kafs */
	{ 0x5346414f, 0, "afs" },	/* OpenAFS */
	{ 0x20030528, 0, "orangefs" },
	{ 0x73757245, 0, "coda" },
	{ 0x01021997, 0, "9p" },
	{ 0x786f4256, 0, "vboxsf" },
	{ 0x00c0ffee, 0, "hostfs" },
	/* stacked, and FUSE (virtiofs reports fuse's magic) */
	{ 0x794c7630, 0, "overlay" },
	{ 0x0000f15f, 0, "ecryptfs" },
	{ 0x65735546, 0, "fuse" },
};

static const struct fstype *find(uint64_t magic)
{
	if (!magic || magic > UINT32_MAX)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].magic == magic)
			return &types[i];
	return NULL;
}

const char *cm_fstype_name(uint64_t magic)
{
	const struct fstype *t = find(magic);

	return t ? t->name : NULL;
}

uint64_t cm_fstype_from_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, name) == 0)
			return types[i].magic;
	return 0;
}

int cm_fstype_is_memory(uint64_t magic)
{
	const struct fstype *t = find(magic);

	return t && t->memory;
}
