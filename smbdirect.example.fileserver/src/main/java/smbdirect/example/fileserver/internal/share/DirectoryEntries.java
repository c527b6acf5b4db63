package smbdirect.example.fileserver.internal.share;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/**
 * One QUERY_DIRECTORY entry in the classes of [MS-FSCC] 2.4: NextEntryOffset left 0 (the share
 * chains them), FileIndex 0 (no positions in this file system), EaSize 0, no short names.
 */
final class DirectoryEntries {

    private DirectoryEntries() {
    }

    /** The bytes before FileName, or INVALID_INFO_CLASS for a class QUERY_DIRECTORY does not serve. */
    static int fixedSize(int infoClass) throws SmbStatusException {
        return switch (infoClass) {
            case Fscc.FileDirectoryInformation -> 64; // 2.4.10
            case Fscc.FileFullDirectoryInformation -> 68; // 2.4.14
            case Fscc.FileBothDirectoryInformation -> 94; // 2.4.8
            case Fscc.FileNamesInformation -> 12; // 2.4.28
            case Fscc.FileIdBothDirectoryInformation -> 104; // 2.4.17
            case Fscc.FileIdFullDirectoryInformation -> 80; // 2.4.18
            default -> throw new SmbStatusException(NtStatus.INVALID_INFO_CLASS,
                    "QUERY_DIRECTORY information class " + infoClass + " is not served");
        };
    }

    static byte[] entry(int infoClass, String name, FileStat st) throws SmbStatusException {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int fixed = fixedSize(infoClass);
        ByteBuffer b = Share.le(fixed + n.length);
        b.putInt(0).putInt(0); // NextEntryOffset, FileIndex
        if (infoClass == Fscc.FileNamesInformation) {
            return b.putInt(n.length).put(n).array();
        }
        b.putLong(st.creationTime()).putLong(st.lastAccessTime()).putLong(st.lastWriteTime()).putLong(st.changeTime())
                .putLong(st.endOfFile()).putLong(st.allocationSize()).putInt(st.attributes()).putInt(n.length);
        switch (infoClass) {
            case Fscc.FileFullDirectoryInformation -> b.putInt(0);
            case Fscc.FileIdFullDirectoryInformation -> b.putInt(0).putInt(0).putLong(st.indexNumber());
            case Fscc.FileBothDirectoryInformation -> b.putInt(0).put((byte) 0).put((byte) 0).put(new byte[24]);
            case Fscc.FileIdBothDirectoryInformation -> b.putInt(0).put((byte) 0).put((byte) 0).put(new byte[24])
                    .putShort((short) 0).putLong(st.indexNumber());
            default -> {
            }
        }
        return b.put(n).array();
    }
}
