/* SPDX-License-Identifier: MIT */
/*
 * fstype.h - file system types: the names of the magics the file table's
 * fstype column holds, and which of them are not storage.
 *
 * The recorder stores each file's file system as its superblock's magic
 * (s_magic, what statfs(2) gives in f_type; 0 when unknown: traces from
 * before the column, imports).  The replay must not reproduce the I/O of
 * files on memory and pseudo file systems (a DataLoader's batches in
 * /dev/shm, /proc and /sys reads: memory or the kernel's state, not
 * storage), and analysis counts the same files apart: both ask
 * cm_fstype_is_memory(), so they agree.
 *
 * Memory and pseudo file systems (cm_fstype_is_memory() true):
 *   tmpfs (also devtmpfs, /dev/shm, /run: they report tmpfs's magic),
 *   ramfs, hugetlbfs, proc, sysfs, devpts, cgroup, cgroup2, mqueue,
 *   debugfs, tracefs, bpf, securityfs, selinuxfs, smackfs, apparmorfs,
 *   configfs, fusectl, binfmt_misc, pstore, efivarfs, autofs, rpc_pipefs,
 *   nfsd, binder, resctrl, openpromfs, usbdevfs, xenfs, and the kernel's
 *   internal ones a descriptor can name (pipefs, sockfs, anon_inodefs,
 *   nsfs, pidfs, dmabuf, secretmem, bdev, aio, daxfs, devmem).
 * Storage (false): disk file systems (ext4, which ext2 and ext3 share,
 *   xfs, btrfs, f2fs, bcachefs, jfs, reiserfs, nilfs2, zfs, vfat, exfat,
 *   ntfs, hfs, hfsplus, udf, zonefs, ocfs2, gfs2, jffs2, ubifs, vxfs),
 *   read-only images (iso9660, squashfs, erofs, cramfs, romfs: data sets
 *   are shipped as such), network and parallel ones (nfs, cifs, smb2,
 *   ceph, lustre, gpfs, beegfs, afs, orangefs, coda, 9p, vboxsf, hostfs),
 *   and stacked ones, whose files live on the layers below (overlay, a
 *   container's root, whose upper layer may itself be a tmpfs that its
 *   magic does not show; ecryptfs).  fuse counts as storage: it is how
 *   object stores are mounted for training (gcsfuse, s3fs, mountpoint-s3,
 *   blobfuse, JuiceFS, Alluxio, DAOS), and virtiofs, a VM's share of the
 *   host's files, reports fuse's magic too; the few FUSE pseudo file
 *   systems (lxcfs's /proc files in a container) are then storage too.
 *   9p (QEMU's virtfs, WSL2, gVisor) shares a host's directories.
 * A magic this table does not know, and 0, are storage too: an unknown
 * file system is more likely a vendor's storage than a pseudo one, and a
 * replayed read too many costs less than a job's data left out.
 */
#ifndef IOTAPE_COMMON_FSTYPE_H
#define IOTAPE_COMMON_FSTYPE_H

#include <stdint.h>

/* The file system type's name as mount(8) and /proc/filesystems spell it
 * ("ext4", "tmpfs", "proc", "fuse", ...); NULL for 0 and for a magic
 * this table does not know. */
const char *cm_fstype_name(uint64_t magic);
/* The magic of a name cm_fstype_name() gives; 0 when unknown. */
uint64_t cm_fstype_from_name(const char *name);
/* 1 when magic is a memory or pseudo file system (the list above), whose
 * files the replay leaves out; 0 for storage, unknown magics and 0. */
int cm_fstype_is_memory(uint64_t magic);

#endif /* IOTAPE_COMMON_FSTYPE_H */
