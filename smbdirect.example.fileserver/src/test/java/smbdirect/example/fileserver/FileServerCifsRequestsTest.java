package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.example.fileserver.client.Response;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Smb2TestClient.Logon;
import smbdirect.example.fileserver.client.Smb2TestClient.Negotiated;
import smbdirect.example.fileserver.client.Smb3Signing;
import smbdirect.example.fileserver.client.Status;

/**
 * Requests as Linux cifs shapes them beyond the minimum: a NEGOTIATE with every negotiate context
 * it may send, CREATEs asking for oplocks, leases and create contexts, the compounds of stat,
 * statfs, rename, unlink and mkdir, setattr through FileBasicInformation, and directory listings
 * in each information class it may ask for.
 */
class FileServerCifsRequestsTest extends ServedShareTest {

    private static byte[] le(int... shorts) {
        ByteBuffer b = Smb2.le(2 * shorts.length);
        for (int s : shorts) {
            b.putShort((short) s);
        }
        return b.array();
    }

    @Test
    void aNegotiateWithEveryContextCifsSendsGets311WithoutEncryptionCompressionOrPosix() throws Exception {
        Smb2TestClient c = fixture.client();
        byte[] salt = new byte[32];
        new SecureRandom().nextBytes(salt);
        byte[] guid = new byte[16];
        new SecureRandom().nextBytes(guid);
        ByteBuffer preauth = Smb2.le(6 + 32).putShort((short) 1).putShort((short) 32).putShort((short) Smb2.HASH_SHA512)
                .put(salt);
        byte[] netname = Smb2.utf16(fixture.serverDevice().address().getHostAddress());
        byte[] posix = HexFormat.of().parseHex("93AD25509CB411E7B42383DE968BCD7C");
        List<int[]> types = List.of(new int[] {Smb2.PREAUTH_INTEGRITY_CAPABILITIES},
                new int[] {Smb2.ENCRYPTION_CAPABILITIES}, new int[] {0x0003}, new int[] {0x0005}, new int[] {0x0006},
                new int[] {Smb2.SIGNING_CAPABILITIES}, new int[] {0x0100});
        List<byte[]> data = List.of(preauth.array(), le(4, 0x0002, 0x0001, 0x0004, 0x0003),
                Smb2.le(12).putShort((short) 1).putShort((short) 0).putInt(0).putShort((short) 2).putShort((short) 0)
                        .array(),
                netname, Smb2.le(4).putInt(1).array(), le(2, 0x0002, 0x0001), posix);
        int caps = Smb2TestClient.CLIENT_CAPABILITIES | Smb2.CAP_ENCRYPTION | Smb2.CAP_PERSISTENT_HANDLES
                | Smb2.CAP_DIRECTORY_LEASING;
        Negotiated n = c.negotiate(Smb2.negotiate311(new int[] {Smb2.DIALECT_300, Smb2.DIALECT_302, Smb2.DIALECT_311},
                Smb2.SIGNING_ENABLED, caps, guid, types, data));
        assertEquals(Status.name(Status.SUCCESS), Status.name(n.status()));
        assertEquals(Smb2.DIALECT_311, n.dialect());
        assertNotNull(n.context(Smb2.PREAUTH_INTEGRITY_CAPABILITIES));
        assertEquals(0, n.capabilities() & Smb2.CAP_ENCRYPTION, "no encryption offered (2.2.4 Capabilities)");
        Smb2TestClient.Context cipher = n.context(Smb2.ENCRYPTION_CAPABILITIES);
        if (cipher != null) {
            assertEquals(0, Smb2.le(cipher.data()).getShort(2), "3.3.5.4: no cipher chosen (Ciphers[0] = 0)");
        }
        assertNull(n.context(0x0003), "no compression chosen");
        assertNull(n.context(0x0100), "no POSIX extensions: cifs would use them");
        Smb2TestClient.Context signing = n.context(Smb2.SIGNING_CAPABILITIES);
        if (signing != null) {
            ByteBuffer s = Smb2.le(signing.data());
            assertEquals(1, s.getShort(0), "one signing algorithm chosen");
            assertEquals(0x0001, s.getShort(2), "AES-CMAC, the algorithm of the final SESSION_SETUP's signature");
        }
        Logon l = c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD);
        assertEquals(Status.name(Status.SUCCESS), Status.name(l.status()));
        assertEquals(0, l.sessionFlags() & Smb2.SESSION_FLAG_ENCRYPT_DATA);
        assertArrayEquals(Smb3Signing.signature(l.signingKey(), l.last().bytes()), l.last().signature(),
                "the pre-auth hash over this NEGOTIATE and the logon gives the signing key");
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        assertEquals(List.of(), c.problems());
    }

    /**
     * [MS-SMB2] 2.2.13.2, 2.2.14, 3.3.5.9: RequestedOplockLevel and create contexts the server does
     * not serve are not granted.
     */
    @Test
    void aCreateAskingForABatchOplockALeaseAndCreateContextsIsGrantedNoneOfThemAndOpens() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("ctx.bin"), FileData.pattern(100, 1));
        // SMB2_CREATE_REQUEST_LEASE_V2 (2.2.13.2.10) and SMB2_CREATE_DURABLE_HANDLE_REQUEST_V2 (2.2.13.2.11)
        byte[] lease = Smb2.le(52).put(FileData.pattern(16, 2)).putInt(0x07).putInt(0).putLong(0)
                .put(new byte[16]).putShort((short) 1).putShort((short) 0).array();
        byte[] durable = Smb2.le(32).putInt(0).putInt(0).putLong(0).put(FileData.pattern(16, 3)).array();
        Response r = c.call(Smb2.create("ctx.bin", Smb2.READ_WRITE, Smb2.FILE_ATTRIBUTE_NORMAL, Smb2.SHARE_ALL,
                Smb2.FILE_OPEN, Smb2.FILE_NON_DIRECTORY_FILE, 0x09,
                List.of("MxAc", "QFid", "RqLs", "DH2Q"), List.of(new byte[0], new byte[0], lease, durable)));
        assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()));
        assertEquals(0, r.u8(2), "OplockLevel: no oplock and no lease granted (the server sends no breaks)");
        Smb2TestClient.Created created = Smb2TestClient.Created.of(r);
        assertEquals(100, created.endOfFile());
        int contextsOffset = r.i32(80);
        int contextsLength = r.i32(84);
        if (contextsLength > 0) {
            byte[] contexts = r.slice(contextsOffset, contextsLength); // within the response
            String all = new String(contexts, java.nio.charset.StandardCharsets.ISO_8859_1);
            assertFalse(all.contains("RqLs") || all.contains("DH2Q"), "no lease and no durable handle granted");
        }
        assertArrayEquals(FileData.pattern(100, 1), Smb2TestClient.readData(c.readInline(created.fileId(), 0, 100)));
        assertEquals(List.of(), c.problems());
    }

    @Test
    void aCreateContextChainPointingOutsideTheRequestIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Smb2.Body good = Smb2.create("x.bin", Smb2.READ_WRITE, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN_IF, 0, 0,
                List.of("MxAc"), List.of(new byte[0]));
        byte[] bad = good.bytes().clone();
        int contexts = Smb2.le(bad).getInt(48) - 64;
        Smb2.le(bad).putInt(contexts, 4096); // Next beyond the request
        Response r = c.call(new Smb2.Body(Smb2.CREATE, bad));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(r.status()),
                "3.3.5.9: a malformed create context");
        assertFalse(Files.exists(shareDir.resolve("x.bin")), "nothing created");
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    private List<Response> compound(Smb2TestClient c, Smb2.Body... bodies) throws Exception {
        List<CompletableFuture<Response>> f = c.compound(true, bodies);
        List<Response> out = new java.util.ArrayList<>();
        for (int i = 0; i < f.size(); i++) {
            out.add(c.await(f.get(i), "compounded request " + i));
        }
        return out;
    }

    @Test
    void theCompoundsOfStatfsRenameUnlinkAndMkdirDoWhatTheySay() throws Exception {
        Smb2TestClient c = fixture.mounted();
        List<Response> statfs = compound(c,
                Smb2.create("", Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN, 0),
                Smb2.queryInfo(Smb2.RELATED_FILE_ID, Smb2.INFO_FILESYSTEM, Smb2.FILE_FS_FULL_SIZE_INFORMATION, 32, 0),
                Smb2.close(Smb2.RELATED_FILE_ID, 0));
        for (Response r : statfs) {
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()), r.describe());
        }
        assertEquals(32, Smb2TestClient.outputBuffer(statfs.get(1)).length, "[MS-FSCC] 2.5.4: 32 bytes");

        Files.write(shareDir.resolve("before.txt"), FileData.pattern(33, 3));
        List<Response> rename = compound(c,
                Smb2.create("before.txt", Smb2.DELETE | Smb2.FILE_READ_ATTRIBUTES | Smb2.SYNCHRONIZE, 0,
                        Smb2.SHARE_ALL, Smb2.FILE_OPEN, 0),
                Smb2.setInfo(Smb2.RELATED_FILE_ID, Smb2.INFO_FILE, Smb2.FILE_RENAME_INFORMATION,
                        Smb2.renameInformation("after.txt", false)),
                Smb2.close(Smb2.RELATED_FILE_ID, 0));
        for (Response r : rename) {
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()), r.describe());
        }
        assertFalse(Files.exists(shareDir.resolve("before.txt")));
        assertArrayEquals(FileData.pattern(33, 3), Files.readAllBytes(shareDir.resolve("after.txt")));

        List<Response> unlink = compound(c,
                Smb2.create("after.txt", Smb2.DELETE | Smb2.FILE_READ_ATTRIBUTES, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN,
                        Smb2.FILE_NON_DIRECTORY_FILE | Smb2.FILE_DELETE_ON_CLOSE),
                Smb2.close(Smb2.RELATED_FILE_ID, 0));
        for (Response r : unlink) {
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()), r.describe());
        }
        assertFalse(Files.exists(shareDir.resolve("after.txt")));

        List<Response> mkdir = compound(c,
                Smb2.create("made", Smb2.FILE_READ_ATTRIBUTES, Smb2.FILE_ATTRIBUTE_DIRECTORY, Smb2.SHARE_ALL,
                        Smb2.FILE_CREATE, Smb2.FILE_DIRECTORY_FILE),
                Smb2.close(Smb2.RELATED_FILE_ID, 0));
        for (Response r : mkdir) {
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()), r.describe());
        }
        assertTrue(Files.isDirectory(shareDir.resolve("made")));
        assertEquals(List.of(), c.problems());
    }

    /**
     * [MS-SMB2] 3.3.5.18, 2.2.4 MaxTransactSize: a listing asked with OutputBufferLength
     * MaxTransactSize comes back whole in responses as large as the transport carries (fragmented
     * Sends, [MS-SMBD] 3.1.5.4).
     */
    @Test
    void aListingAskedWithMaxTransactSizeComesBackWhole() throws Exception {
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 4000; i++) {
            String name = String.format("entry-%05d-with-a-name-long-enough-to-fill-megabytes.txt", i);
            Files.createFile(shareDir.resolve(name));
            expected.add(name);
        }
        Smb2TestClient c = fixture.mounted();
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        Set<String> names = new TreeSet<>();
        int flags = Smb2.RESTART_SCANS;
        int largest = 0;
        while (true) {
            Response r = c.queryDirectory(root, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, flags, "*",
                    c.maxTransactSize());
            flags = 0;
            if (r.status() == Status.NO_MORE_FILES) {
                break;
            }
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()));
            byte[] out = Smb2TestClient.outputBuffer(r);
            largest = Math.max(largest, out.length);
            for (String n : Smb2TestClient.directoryNames(out, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION)) {
                if (!n.equals(".") && !n.equals("..")) {
                    assertTrue(names.add(n), n + " twice");
                }
            }
        }
        assertEquals(expected, names);
        assertTrue(largest > 64 * 1024, "one response carried " + largest + " bytes of entries (MaxTransactSize "
                + c.maxTransactSize() + ")");
        assertEquals(List.of(), c.problems());
    }

    /**
     * [MS-SMB2] 3.3.5.20.1, [MS-FSCC] 2.4.2: FileAllInformation cut within the name is BUFFER_OVERFLOW
     * with what fits.
     */
    @Test
    void aCutFileAllInformationAnswersBufferOverflowWithWhatFits() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("a-rather-long-file-name-to-cut.bin"), new byte[4321]);
        byte[] f = c.openFile("a-rather-long-file-name-to-cut.bin", Smb2.FILE_OPEN);
        Response r = c.queryInfo(f, Smb2.INFO_FILE, Smb2.FILE_ALL_INFORMATION, 104);
        assertEquals(Status.name(Status.BUFFER_OVERFLOW), Status.name(r.status()));
        assertFalse(r.isErrorBody() && r.i32(4) == 0, "a BUFFER_OVERFLOW response carries the data that fit");
        byte[] out = Smb2TestClient.outputBuffer(r);
        assertEquals(104, out.length, "OutputBufferLength: all 104 bytes asked");
        assertEquals(4321, Smb2.le(out).getLong(48), "EndOfFile in the part that fit");
        assertEquals(List.of(), c.problems());
    }

    /**
     * [MS-SMB2] 3.3.5.20.3, 2.2.2: a security descriptor larger than the buffer is
     * STATUS_BUFFER_TOO_SMALL with the size needed: in an SMB2 ERROR Context under 3.1.1
     * (ByteCount 12, ErrorContextCount 1), as 4 bytes of ErrorData before.
     */
    @ParameterizedTest(name = "dialect {0}")
    @ValueSource(ints = {Smb2.DIALECT_302, Smb2.DIALECT_311})
    void aSecurityQueryInTooSmallABufferSaysTheSizeNeeded(int dialect) throws Exception {
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate(new int[] {dialect}, Smb2.SIGNING_ENABLED).status());
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        Files.write(shareDir.resolve("acl.bin"), new byte[1]);
        Smb2TestClient.Created f = c.create("acl.bin", Smb2.READ_ONLY | Smb2.READ_CONTROL, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.SUCCESS, f.status());
        int ownerGroupDacl = 0x1 | 0x2 | 0x4;
        Response full = c.call(Smb2.queryInfo(f.fileId(), Smb2.INFO_SECURITY, 0, 65536, ownerGroupDacl));
        assertEquals(Status.name(Status.SUCCESS), Status.name(full.status()));
        byte[] sd = Smb2TestClient.outputBuffer(full);
        assertEquals(1, sd[0], "[MS-DTYP] 2.4.6: Revision 1");
        assertTrue((Smb2.le(sd).getShort(2) & 0x8000) != 0, "SE_SELF_RELATIVE");
        Response small = c.call(Smb2.queryInfo(f.fileId(), Smb2.INFO_SECURITY, 0, 8, ownerGroupDacl));
        assertEquals(Status.name(Status.BUFFER_TOO_SMALL), Status.name(small.status()));
        if (dialect == Smb2.DIALECT_311) {
            assertEquals(1, small.u8(2), "ErrorContextCount");
            assertEquals(12, small.i32(4), "ByteCount: one 12-byte error context");
            assertEquals(4, small.i32(8), "ErrorDataLength");
            assertEquals(0, small.i32(12), "ErrorId SMB2_ERROR_ID_DEFAULT");
            assertEquals(sd.length, small.i32(16), "the size needed");
        } else {
            assertEquals(0, small.u8(2), "ErrorContextCount");
            assertEquals(4, small.i32(4), "ByteCount: the 4-byte size needed");
            assertEquals(sd.length, small.i32(8), "the size needed");
        }
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.21.1, [MS-FSCC] 2.4.7: FileBasicInformation sets the times. */
    @Test
    void setattrThroughFileBasicInformationSetsTheModificationTime() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Files.write(shareDir.resolve("t.txt"), new byte[5]);
        Smb2TestClient.Created f = c.create("t.txt", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN, 0);
        long when = 1_500_000_000_000L; // 2017-07-14
        Response set = c.setInfo(f.fileId(), Smb2.INFO_FILE, Smb2.FILE_BASIC_INFORMATION,
                Smb2.basicInformation(0, 0, Smb2.filetime(when), 0, 0));
        assertEquals(Status.name(Status.SUCCESS), Status.name(set.status()));
        assertEquals(Status.SUCCESS, c.close(f.fileId()).status());
        assertEquals(FileTime.fromMillis(when), Files.getLastModifiedTime(shareDir.resolve("t.txt")));
        Smb2TestClient.Created again = c.create("t.txt", Smb2.READ_ONLY, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Smb2.filetime(when), again.lastWriteTime(), "CREATE reports the time set");
        Response shortBuffer = c.setInfo(again.fileId(), Smb2.INFO_FILE, Smb2.FILE_BASIC_INFORMATION, new byte[10]);
        assertEquals(Status.name(Status.INFO_LENGTH_MISMATCH), Status.name(shortBuffer.status()),
                "FileBasicInformation of 10 bytes");
        assertEquals(List.of(), c.problems());
    }

    @Test
    void everyDirectoryInformationClassListsTheSameNames() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Set<String> expected = new TreeSet<>();
        for (String n : new String[] {"alpha.txt", "Beta.TXT", "gamma with spaces", "delta.tar.gz", "sub"}) {
            if (n.equals("sub")) {
                Files.createDirectory(shareDir.resolve(n));
            } else {
                Files.write(shareDir.resolve(n), new byte[n.length()]);
            }
            expected.add(n);
        }
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        for (int infoClass : new int[] {Smb2.FILE_DIRECTORY_INFORMATION, Smb2.FILE_FULL_DIRECTORY_INFORMATION,
            Smb2.FILE_BOTH_DIRECTORY_INFORMATION, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION,
            Smb2.FILE_ID_FULL_DIRECTORY_INFORMATION, Smb2.FILE_NAMES_INFORMATION}) {
            Set<String> names = new TreeSet<>();
            int flags = Smb2.RESTART_SCANS;
            while (true) {
                Response r = c.queryDirectory(root, infoClass, flags, "*", 65536);
                flags = 0;
                if (r.status() == Status.NO_MORE_FILES) {
                    break;
                }
                assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()), "class " + infoClass);
                for (String n : Smb2TestClient.directoryNames(Smb2TestClient.outputBuffer(r), infoClass)) {
                    if (!n.equals(".") && !n.equals("..")) {
                        assertTrue(names.add(n), "class " + infoClass + " lists " + n + " twice");
                    }
                }
            }
            assertEquals(expected, names, "[MS-FSCC] 2.4 class " + infoClass);
        }
        assertEquals(List.of(), c.problems());
    }
}
