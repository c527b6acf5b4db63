package smbdirect.example.fileserver.internal.share;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The bytes of the [MS-FSCC] 2.4 and 2.5 information classes, and a [MS-DTYP] 2.4.6 security descriptor. */
final class InfoClasses {

    /** FileAllInformation without its name ([MS-FSCC] 2.4.2): basic 40, standard 24, internal 8, EA 4, access 4, position 8, mode 4, alignment 4, name length 4. */
    static final int ALL_FIXED = 100;

    private InfoClasses() {
    }

    private static ByteBuffer le(int size) {
        return Share.le(size);
    }

    private static byte[] utf16(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    /** FileBasicInformation, [MS-FSCC] 2.4.7: four times, attributes, 4 reserved. */
    static byte[] basic(FileStat st) {
        return putBasic(le(40), st).array();
    }

    private static ByteBuffer putBasic(ByteBuffer b, FileStat st) {
        return b.putLong(st.creationTime()).putLong(st.lastAccessTime()).putLong(st.lastWriteTime())
                .putLong(st.changeTime()).putInt(st.attributes()).putInt(0);
    }

    /** FileStandardInformation, [MS-FSCC] 2.4.41. */
    static byte[] standard(FileStat st, boolean deletePending) {
        return putStandard(le(24), st, deletePending).array();
    }

    private static ByteBuffer putStandard(ByteBuffer b, FileStat st, boolean deletePending) {
        return b.putLong(st.allocationSize()).putLong(st.endOfFile()).putInt(st.links())
                .put((byte) (deletePending ? 1 : 0)).put((byte) (st.directory() ? 1 : 0)).putShort((short) 0);
    }

    /** FileAllInformation, [MS-FSCC] 2.4.2, with the name from the share's root ("\dir\file"). */
    static byte[] all(FileStat st, boolean deletePending, int access, int mode, String name) {
        byte[] n = utf16(name);
        ByteBuffer b = le(ALL_FIXED + n.length);
        putBasic(b, st);
        putStandard(b, st, deletePending);
        b.putLong(st.indexNumber()); // FileInternalInformation
        b.putInt(0); // FileEaInformation
        b.putInt(access); // FileAccessInformation
        b.putLong(0); // FilePositionInformation
        b.putInt(mode); // FileModeInformation
        b.putInt(0); // FileAlignmentInformation: FILE_BYTE_ALIGNMENT
        b.putInt(n.length).put(n); // FileNameInformation
        return b.array();
    }

    /** FileNameInformation / FileNormalizedNameInformation, [MS-FSCC] 2.4.28 / 2.4.30. */
    static byte[] name(String name) {
        byte[] n = utf16(name);
        return le(4 + n.length).putInt(n.length).put(n).array();
    }

    /** FileStreamInformation, [MS-FSCC] 2.4.44: the one unnamed data stream of a file. */
    static byte[] dataStream(FileStat st) {
        byte[] n = utf16("::$DATA");
        return le(24 + n.length).putInt(0).putInt(n.length).putLong(st.endOfFile()).putLong(st.allocationSize()).put(n).array();
    }

    /** FileCompressionInformation, [MS-FSCC] 2.4.9: not compressed. */
    static byte[] compression(FileStat st) {
        return le(16).putLong(st.endOfFile()).putShort((short) 0 /* COMPRESSION_FORMAT_NONE */)
                .put((byte) 0).put((byte) 0).put((byte) 0).put(new byte[3]).array();
    }

    /** FileNetworkOpenInformation, [MS-FSCC] 2.4.29. */
    static byte[] networkOpen(FileStat st) {
        return le(56).putLong(st.creationTime()).putLong(st.lastAccessTime()).putLong(st.lastWriteTime())
                .putLong(st.changeTime()).putLong(st.allocationSize()).putLong(st.endOfFile())
                .putInt(st.attributes()).putInt(0).array();
    }

    /** FileFsVolumeInformation, [MS-FSCC] 2.5.9: the share's name as the label; no object ids. */
    static byte[] volume(long creationTime, int serial, String label) {
        byte[] n = utf16(label);
        return le(18 + n.length).putLong(creationTime).putInt(serial).putInt(n.length).put((byte) 0).put((byte) 0)
                .put(n).array();
    }

    /**
     * FileFsAttributeInformation, [MS-FSCC] 2.5.1: FILE_CASE_SENSITIVE_SEARCH,
     * FILE_CASE_PRESERVED_NAMES, FILE_UNICODE_ON_DISK (and FILE_READ_ONLY_VOLUME); names up to
     * 255; "NTFS", the name clients know the behaviour of.
     */
    static byte[] fsAttribute(boolean readOnly) {
        byte[] n = utf16("NTFS");
        int flags = 0x1 | 0x2 | 0x4 | (readOnly ? 0x00080000 : 0);
        return le(12 + n.length).putInt(flags).putInt(255).putInt(n.length).put(n).array();
    }

    /**
     * A self-relative security descriptor ([MS-DTYP] 2.4.6) with the parts {@code additional}
     * asks for (OWNER_SECURITY_INFORMATION 1, GROUP 2, DACL 4): the owner S-1-22-1-uid and group
     * S-1-22-2-gid (Everyone when unknown), a DACL with one ACCESS_ALLOWED ACE granting
     * {@code mask} to Everyone (S-1-1-0).
     */
    static byte[] securityDescriptor(int additional, int uid, int gid, int mask) {
        byte[] owner = (additional & 0x1) != 0 ? (uid >= 0 ? sid(22, 1, uid) : sid(1, 0)) : null;
        byte[] group = (additional & 0x2) != 0 ? (gid >= 0 ? sid(22, 2, gid) : sid(1, 0)) : null;
        byte[] dacl = null;
        if ((additional & 0x4) != 0) {
            byte[] everyone = sid(1, 0);
            int aceSize = 8 + everyone.length;
            dacl = le(8 + aceSize).put((byte) 2).put((byte) 0).putShort((short) (8 + aceSize)).putShort((short) 1)
                    .putShort((short) 0)
                    .put((byte) 0 /* ACCESS_ALLOWED_ACE_TYPE */).put((byte) 0).putShort((short) aceSize).putInt(mask)
                    .put(everyone).array();
        }
        int size = 20 + len(owner) + len(group) + len(dacl);
        ByteBuffer b = le(size);
        int control = 0x8000 /* SE_SELF_RELATIVE */ | (dacl != null ? 0x0004 /* SE_DACL_PRESENT */ : 0);
        b.put((byte) 1).put((byte) 0).putShort((short) control);
        int at = 20;
        b.putInt(owner != null ? at : 0);
        at += len(owner);
        b.putInt(group != null ? at : 0);
        at += len(group);
        b.putInt(0); // no SACL
        b.putInt(dacl != null ? at : 0);
        for (byte[] part : new byte[][] {owner, group, dacl}) {
            if (part != null) {
                b.put(part);
            }
        }
        return b.array();
    }

    private static int len(byte[] b) {
        return b == null ? 0 : b.length;
    }

    /** A SID ([MS-DTYP] 2.4.2.2): revision 1, an identifier authority below 2^32, sub-authorities. */
    static byte[] sid(int authority, int... subAuthorities) {
        ByteBuffer b = le(8 + 4 * subAuthorities.length);
        b.put((byte) 1).put((byte) subAuthorities.length);
        b.put(new byte[] {0, 0, (byte) (authority >>> 24), (byte) (authority >>> 16), (byte) (authority >>> 8), (byte) authority});
        for (int s : subAuthorities) {
            b.putInt(s);
        }
        return b.array();
    }
}
