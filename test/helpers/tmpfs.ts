// The machine's folder in memory: tmpfs at /dev/shm, where there is one this user can write to.
import { accessSync, constants, statfsSync } from 'node:fs';

/** statfs's f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/** '/dev/shm' when it is a tmpfs this user can write to with at least minFreeBytes free, else undefined. */
export function tmpfsFolder(minFreeBytes = 0): string | undefined {
  try {
    accessSync('/dev/shm', constants.W_OK);
    const fs = statfsSync('/dev/shm');
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= minFreeBytes ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
