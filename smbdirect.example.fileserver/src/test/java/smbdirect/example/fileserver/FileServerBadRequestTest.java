package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.example.fileserver.client.Response;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Smb2TestClient.Outcome;
import smbdirect.example.fileserver.client.Status;

/**
 * Bad input: names leading out of the share, RDMA descriptors that do not fit, offsets and
 * lengths out of range, malformed SMB2 headers, an RDMA transfer that fails half way. Each gets
 * its [MS-SMB2] status, or (where the request cannot be answered) its own connection closed with
 * the reason in the server's log; nothing else is disturbed, and nothing the client did not ask
 * for happens to the share.
 */
class FileServerBadRequestTest {

    @TempDir
    Path temp;
    Path shareDir;
    Path outside;
    FileServerFixture fixture;

    @BeforeEach
    void start() throws Exception {
        shareDir = Files.createDirectory(temp.resolve("share"));
        outside = Files.createDirectory(temp.resolve("outside"));
        Files.write(outside.resolve("secret.txt"), "secret".getBytes());
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir));
    }

    @AfterEach
    void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** A client that keeps working: the server goes on serving it. */
    private Smb2TestClient bystander() throws Exception {
        Smb2TestClient b = fixture.mounted();
        byte[] f = b.openFile("bystander.bin", Smb2.FILE_OVERWRITE_IF);
        b.writeAll(f, 0, FileData.pattern(100_000, 42), Smb2.CHANNEL_RDMA_V1, 1);
        return b;
    }

    private static void stillServes(Smb2TestClient b) throws Exception {
        assertEquals(Status.SUCCESS, b.echo().status());
        byte[] f = b.openFile("bystander.bin", Smb2.FILE_OPEN);
        assertArrayEquals(FileData.pattern(100_000, 42), b.readAll(f, 0, 100_000, Smb2.CHANNEL_RDMA_V1, 1));
        assertEquals(Status.SUCCESS, b.close(f).status());
        assertEquals(List.of(), b.problems());
    }

    /** [MS-SMB2] 3.3.5.9: every name a CREATE gives is resolved inside the share; one that climbs out is refused. */
    @Test
    void dotDotOutOfTheShareIsRefusedAndNothingOutsideIsTouched() throws Exception {
        Smb2TestClient c = fixture.mounted();
        for (String name : new String[] {"..\\outside\\secret.txt", "a\\..\\..\\outside\\secret.txt",
            "..\\outside\\new.txt", "\\..\\outside\\secret.txt", "..", "sub\\..\\.."}) {
            Smb2TestClient.Created r = c.create(name, Smb2.READ_WRITE, 0, Smb2.FILE_OPEN_IF, 0);
            assertNotEquals(Status.SUCCESS, r.status(), "CREATE '" + name + "' must not open anything outside");
        }
        assertFalse(Files.exists(outside.resolve("new.txt")), "nothing created outside the share");
        assertArrayEquals("secret".getBytes(), Files.readAllBytes(outside.resolve("secret.txt")));
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.9: a symbolic link inside the share that leads out of it is not followed. */
    @Test
    void aSymlinkLeadingOutOfTheShareIsNotFollowed() throws Exception {
        Files.createSymbolicLink(shareDir.resolve("out"), outside);
        Files.createSymbolicLink(shareDir.resolve("secret-link.txt"), outside.resolve("secret.txt"));
        Smb2TestClient c = fixture.mounted();
        for (String name : new String[] {"out\\secret.txt", "secret-link.txt", "out\\created.txt"}) {
            Smb2TestClient.Created r = c.create(name, Smb2.READ_WRITE, 0, Smb2.FILE_OPEN_IF, 0);
            if (r.status() == Status.SUCCESS) {
                Response read = c.readInline(r.fileId(), 0, 100);
                assertFalse(read.status() == Status.SUCCESS
                        && new String(Smb2TestClient.readData(read)).equals("secret"),
                        "'" + name + "' read the file outside the share");
            }
            assertNotEquals(Status.SUCCESS, r.status(), "CREATE '" + name + "' through a link out of the share");
        }
        Smb2TestClient.Created dir = c.create("out", Smb2.READ_ONLY, 0, Smb2.FILE_OPEN, Smb2.FILE_DIRECTORY_FILE);
        if (dir.status() == Status.SUCCESS) {
            assertFalse(c.list(dir.fileId(), "*").contains("secret.txt"), "listed the directory outside the share");
        }
        assertFalse(Files.exists(outside.resolve("created.txt")));
        assertArrayEquals("secret".getBytes(), Files.readAllBytes(outside.resolve("secret.txt")));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.9: a symbolic link that stays inside the share is followed, a file's and a directory's. */
    @Test
    void aSymlinkStayingInsideTheShareIsFollowed() throws Exception {
        Files.createDirectory(shareDir.resolve("real"));
        Files.write(shareDir.resolve("real/data.txt"), FileData.pattern(77, 4));
        Files.createSymbolicLink(shareDir.resolve("file-link.txt"), shareDir.resolve("real/data.txt"));
        Files.createSymbolicLink(shareDir.resolve("dir-link"), Path.of("real"));
        Smb2TestClient c = fixture.mounted();
        byte[] viaFile = c.openFile("file-link.txt", Smb2.FILE_OPEN);
        assertArrayEquals(FileData.pattern(77, 4), Smb2TestClient.readData(c.readInline(viaFile, 0, 77)));
        byte[] viaDir = c.openFile("dir-link\\data.txt", Smb2.FILE_OPEN);
        assertArrayEquals(FileData.pattern(77, 4), Smb2TestClient.readData(c.readInline(viaDir, 0, 77)));
        assertEquals(List.of(), c.problems());
    }

    @Test
    void aReadWithAWrongTokenClosesThatConnectionOnlyAndTheServerFreesItsRegistrations() throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("data.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, FileData.pattern(65536, 1), Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(2, fixture.server().connections());
        List<RegisteredBuffer> regs = c.register(65536, 1, RemoteAccess.WRITE);
        BufferDescriptor good = regs.get(0).descriptors().get(0);
        BufferDescriptor wrong = new BufferDescriptor(good.offset(), good.token() ^ 0x00A5A500, good.length());
        try (FileData.LogCapture log = new FileData.LogCapture()) {
            Outcome o = c.outcome(c.submit(Smb2.readRdma(f, 0, 65536, Smb2.CHANNEL_RDMA_V1, List.of(wrong))));
            if (o.response() != null) {
                assertNotEquals(Status.SUCCESS, o.response().status(),
                        "no success for a READ whose data never arrived");
            }
            CloseReason reason = c.awaitClosed();
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, reason.kind(),
                    "a failed RDMA Write ends that connection ([MS-SMBD] 3.1.4.5): " + reason);
            FileServerFixture.await("the server's log says the READ's RDMA Write failed, with the token",
                    () -> log.text().contains("RDMA Write of READ failed")
                            && log.text().contains(Integer.toHexString(wrong.token())));
        }
        FileServerFixture.await("the server lets go of the closed connection", () -> fixture.server().connections() == 1
                && fixture.serverConnections().length == 1);
        stillServes(b);
        FileServerFixture.await("no registration of the closed connection is left on the server's device",
                () -> fixture.serverDevice().endpoints().size() == 1);
    }

    /**
     * [MS-SMBD] 3.1.4.5, [MS-SMB2] 3.3.5.12: an RDMA Write the client's registration refuses ends that
     * connection only.
     */
    @Test
    void aDescriptorLongerThanTheClientsRegistrationEndsOnlyThatConnection() throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("data.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, FileData.pattern(65536, 1), Smb2.CHANNEL_RDMA_V1, 1);
        List<RegisteredBuffer> regs = c.register(4096, 1, RemoteAccess.WRITE);
        BufferDescriptor d = regs.get(0).descriptors().get(0);
        BufferDescriptor longer = new BufferDescriptor(d.offset(), d.token(), 65536);
        Outcome o = c.outcome(c.submit(Smb2.readRdma(f, 0, 65536, Smb2.CHANNEL_RDMA_V1, List.of(longer))));
        if (o.response() != null) {
            assertNotEquals(Status.SUCCESS, o.response().status());
        }
        assertNotNull(c.awaitClosed(), "the RDMA Write beyond the registration fails and ends the connection");
        stillServes(b);
    }

    /** [MS-SMB2] 3.3.5.12, 3.3.5.13: the channel's descriptors must cover the Length asked. */
    @Test
    void aReadOrWriteLongerThanItsDescriptorsIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("data.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, FileData.pattern(65536, 1), Smb2.CHANNEL_RDMA_V1, 1);
        List<RegisteredBuffer> regs = c.register(4096, 1, RemoteAccess.READ_WRITE);
        List<BufferDescriptor> d = Smb2TestClient.descriptors(regs);
        Response read = c.call(Smb2.readRdma(f, 0, 8192, Smb2.CHANNEL_RDMA_V1, d));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(read.status()),
                "READ of 8192 bytes into 4096 described bytes");
        Response write = c.call(Smb2.writeRdma(f, 0, 8192, Smb2.CHANNEL_RDMA_V1, d));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(write.status()),
                "WRITE of 8192 bytes from 4096 described bytes");
        Response none = c.call(Smb2.readRdma(f, 0, 4096, Smb2.CHANNEL_RDMA_V1, List.of()));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(none.status()),
                "an RDMA channel without descriptors");
        assertArrayEquals(FileData.pattern(65536, 1), Files.readAllBytes(shareDir.resolve("data.bin")),
                "the file is untouched");
        c.deregister(regs);
        assertEquals(Status.SUCCESS, c.echo().status(), "the connection goes on");
        assertEquals(List.of(), c.problems());
    }

    /**
     * [MS-SMB2] 2.2.19, 3.3.5.12: ReadChannelInfoOffset, ReadChannelInfoLength and Channel must
     * describe whole descriptors in the request.
     */
    @Test
    void malformedChannelInfoIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("data.bin", Smb2.FILE_OVERWRITE_IF);
        List<RegisteredBuffer> regs = c.register(4096, 1, RemoteAccess.WRITE);
        Smb2.Body read = Smb2.readRdma(f, 0, 4096, Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(regs));
        byte[] cut = read.bytes().clone();
        Smb2.le(cut).putShort(46, (short) 15); // ReadChannelInfoLength not a whole descriptor
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.READ, cut)).status()), "ReadChannelInfoLength 15");
        byte[] beyond = read.bytes().clone();
        Smb2.le(beyond).putShort(44, (short) 400); // ReadChannelInfoOffset beyond the message
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.READ, beyond)).status()), "ReadChannelInfoOffset 400");
        byte[] channel = read.bytes().clone();
        Smb2.le(channel).putInt(36, 7); // no such Channel
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.READ, channel)).status()), "Channel 7");
        c.deregister(regs);
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.12, 3.3.5.13: an Offset (or Offset + Length) beyond what a file can hold. */
    @Test
    void aNegativeOrOverflowingOffsetIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("off.bin", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[10]).status());
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(c.readInline(f, -1, 10).status()),
                "READ at offset 0xFFFFFFFFFFFFFFFF");
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(c.writeInline(f, -4096, new byte[10]).status()),
                "WRITE at a negative offset");
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.writeInline(f, Long.MAX_VALUE - 5, new byte[10]).status()),
                "WRITE whose end overflows");
        List<RegisteredBuffer> regs = c.register(4096, 1, RemoteAccess.WRITE);
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(c.call(Smb2.readRdma(f, -8192, 4096,
                Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(regs))).status()), "RDMA READ at a negative offset");
        c.deregister(regs);
        assertEquals(10, Files.size(shareDir.resolve("off.bin")));
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    @Test
    void aReadOrWriteLargerThanMaxReadSizeOrMaxWriteSizeIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("big.bin", Smb2.FILE_OVERWRITE_IF);
        int read = c.maxReadSize() + 1;
        int write = c.maxWriteSize() + 1;
        List<RegisteredBuffer> into = c.register(read, 1, RemoteAccess.WRITE);
        Response r = c.call(Smb2.readRdma(f, 0, read, Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(into)));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(r.status()),
                "3.3.5.12: Length " + read + " > MaxReadSize");
        c.deregister(into);
        List<RegisteredBuffer> from = c.register(write, 1, RemoteAccess.READ);
        Response w = c.call(Smb2.writeRdma(f, 0, write, Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(from)));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(w.status()),
                "3.3.5.13: Length " + write + " > MaxWriteSize");
        c.deregister(from);
        assertEquals(0, Files.size(shareDir.resolve("big.bin")), "nothing written");
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    @Test
    void aReadChargedTooFewCreditsIsInvalidParameter() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("cc.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, FileData.pattern(200_000, 3), Smb2.CHANNEL_RDMA_V1, 1);
        List<RegisteredBuffer> regs = c.register(200_000, 1, RemoteAccess.WRITE);
        Smb2.Body read = Smb2.readRdma(f, 0, 200_000, Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(regs));
        Response r = c.call(new Smb2.Body(Smb2.READ, read.bytes(), 1));
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(r.status()),
                "3.3.5.2.5: CreditCharge 1 for 200000 bytes");
        c.deregister(regs);
        assertEquals(Status.SUCCESS, c.echo().status());
        assertEquals(List.of(), c.problems());
    }

    private byte[] echoWithHeader(Smb2TestClient c, java.util.function.Consumer<ByteBuffer> damage) {
        long id = c.takeMessageIds(1);
        ByteBuffer m = Smb2.le(68);
        Smb2.putHeader(m, Smb2.ECHO, 1, 1, 0, 0, id, c.treeId(), c.sessionId());
        m.putShort((short) 4).putShort((short) 0);
        damage.accept(m);
        return m.array();
    }

    private void malformedHeaderClosesTheConnectionNaming(String field, java.util.function.Consumer<ByteBuffer> damage)
            throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        try (FileData.LogCapture log = new FileData.LogCapture()) {
            Outcome o = c.sendRawUnmatched(echoWithHeader(c, damage));
            assertNull(o.response(), "no answer to a malformed header: " + o.response());
            assertNotNull(o.closed());
            FileServerFixture.await("the server's log names " + field, () -> log.text().contains(field));
        }
        stillServes(b);
    }

    /** [MS-SMB2] 2.2.1.2, 3.3.5.2: the header's StructureSize is 64. */
    @Test
    void aHeaderWithStructureSize65ClosesTheConnectionNamingTheField() throws Exception {
        malformedHeaderClosesTheConnectionNaming("StructureSize", m -> m.putShort(4, (short) 65));
    }

    /** [MS-SMB2] 2.2.1.2, 3.3.5.2: the ProtocolId is 0xFE 'S' 'M' 'B'. */
    @Test
    void aHeaderWithAnUnknownProtocolIdClosesTheConnectionNamingTheField() throws Exception {
        malformedHeaderClosesTheConnectionNaming("ProtocolId", m -> m.putInt(0, 0x12345678));
    }

    /**
     * [MS-SMB2] 2.2.41, 3.3.5.2.1: an encrypted message (an SMB2 TRANSFORM_HEADER, 0xFD 'S' 'M' 'B')
     * to a server that encrypts nothing closes the connection with a log line saying so.
     */
    @Test
    void anEncryptedMessageClosesTheConnectionSayingThisServerDoesNotEncrypt() throws Exception {
        malformedHeaderClosesTheConnectionNaming("encrypt", m -> m.putInt(0, 0x424D53FD));
    }

    @Test
    void anSmb1MessageAfterTheNegotiateClosesTheConnectionNamingSmb1() throws Exception {
        malformedHeaderClosesTheConnectionNaming("SMB1", m -> m.putInt(0, 0x424D53FF)); // 0xFF 'S' 'M' 'B', 3.3.5.3
    }

    /** [MS-SMB2] 3.3.5.2: a message shorter than the SMB2 header ends the connection. */
    @Test
    void aMessageShorterThanAHeaderClosesTheConnection() throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        Outcome o = c.sendRawUnmatched(java.util.Arrays.copyOf(echoWithHeader(c, m -> { }), 40));
        assertNull(o.response());
        assertNotNull(o.closed());
        stillServes(b);
    }

    @Test
    void aMessageIdUsedTwiceClosesTheConnection() throws Exception {
        Smb2TestClient c = fixture.mounted();
        ByteBuffer m = Smb2.le(68);
        // MessageId 1: the first SESSION_SETUP's
        Smb2.putHeader(m, Smb2.ECHO, 1, 1, 0, 0, 1, c.treeId(), c.sessionId());
        m.putShort((short) 4).putShort((short) 0);
        try (FileData.LogCapture log = new FileData.LogCapture()) {
            Outcome o = c.sendRawUnmatched(m.array());
            assertNull(o.response(), "3.3.5.2.3: a MessageId outside the command sequence window is not served");
            assertNotNull(o.closed());
            FileServerFixture.await("the server's log names the MessageId", () -> log.text().contains("MessageId=1"));
        }
    }

    @Test
    void aMessageIdBeyondTheCreditsGrantedClosesTheConnection() throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        long beyond = c.nextMessageId() + c.credits() + 1000;
        ByteBuffer m = Smb2.le(68);
        Smb2.putHeader(m, Smb2.ECHO, 1, 1, 0, 0, beyond, c.treeId(), c.sessionId());
        m.putShort((short) 4).putShort((short) 0);
        Outcome o = c.sendRawUnmatched(m.array());
        assertNull(o.response(), "3.3.5.2.3: MessageId " + beyond + " was never granted");
        assertNotNull(o.closed());
        stillServes(b);
    }

    @Test
    void malformedRequestBodiesGetInvalidParameterAndTheConnectionGoesOn() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] root = c.openDirectory("", Smb2.FILE_OPEN);
        // an ECHO whose body StructureSize is 5 (3.3.5.2: the StructureSize of each command is fixed)
        byte[] echo = Smb2.empty(Smb2.ECHO).bytes().clone();
        Smb2.le(echo).putShort(0, (short) 5);
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.ECHO, echo)).status()),
                "ECHO StructureSize 5");
        // a CREATE whose name lies beyond the message
        byte[] create = Smb2.create("abc.txt", Smb2.READ_WRITE, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN_IF, 0).bytes()
                .clone();
        Smb2.le(create).putShort(44, (short) 4000);
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.CREATE, create)).status()), "CREATE NameOffset 4000");
        // a CREATE whose name is an odd number of bytes (not UTF-16)
        byte[] odd = Smb2.create("abc.txt", Smb2.READ_WRITE, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN_IF, 0).bytes().clone();
        Smb2.le(odd).putShort(46, (short) 7);
        int oddStatus = c.call(new Smb2.Body(Smb2.CREATE, odd)).status();
        assertTrue(oddStatus == Status.INVALID_PARAMETER || oddStatus == Status.OBJECT_NAME_INVALID,
                "CREATE NameLength 7: " + Status.name(oddStatus));
        // a TREE_CONNECT whose path lies beyond the message
        byte[] tree = Smb2.treeConnect(fixture.sharePath()).bytes().clone();
        Smb2.le(tree).putShort(6, (short) 2000);
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.TREE_CONNECT, tree)).status()), "TREE_CONNECT PathLength 2000");
        // a QUERY_DIRECTORY asking for more than MaxTransactSize (3.3.5.18)
        Response big = c.queryDirectory(root, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, Smb2.RESTART_SCANS, "*",
                c.maxTransactSize() + 1);
        assertEquals(Status.name(Status.INVALID_PARAMETER), Status.name(big.status()),
                "OutputBufferLength beyond MaxTransactSize");
        // a SET_INFO whose buffer lies beyond the message
        byte[] eof = Smb2.setInfo(root, Smb2.INFO_FILE, Smb2.FILE_END_OF_FILE_INFORMATION,
                Smb2.endOfFileInformation(0)).bytes().clone();
        Smb2.le(eof).putInt(4, 100_000);
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(Smb2.SET_INFO, eof)).status()), "SET_INFO BufferLength 100000");
        // an unknown command
        assertEquals(Status.name(Status.INVALID_PARAMETER),
                Status.name(c.call(new Smb2.Body(0x0055, new byte[] {4, 0, 0, 0})).status()),
                "3.3.5.2: command 0x55");
        // a SESSION_SETUP whose token is no NTLMSSP at all
        Smb2TestClient fresh = fixture.client();
        assertEquals(Status.SUCCESS, fresh.negotiate().status());
        Response garbage = fresh.call(Smb2.sessionSetup(Smb2.SIGNING_ENABLED, FileData.pattern(40, 9)));
        assertTrue(garbage.status() == Status.LOGON_FAILURE || garbage.status() == Status.INVALID_PARAMETER,
                "a SESSION_SETUP with 40 random bytes: " + garbage.describe());
        assertEquals(Status.SUCCESS, fresh.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status(),
                "the connection goes on");
        assertEquals(Status.SUCCESS, c.echo().status());
        byte[] f = c.openFile("after.txt", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[3]).status());
        assertEquals(List.of(), c.problems());
        assertEquals(List.of(), fresh.problems());
    }

    /** [MS-SMB2] 3.3.5.13, [MS-SMBD] 3.1.4.6: a WRITE whose RDMA Read fails on its third descriptor. */
    @Test
    void aWriteWhoseRdmaReadFailsHalfWayNeverSucceedsAndLeavesTheFileAsItWas() throws Exception {
        Smb2TestClient b = bystander();
        Smb2TestClient c = fixture.mounted();
        byte[] before = FileData.pattern(1 << 20, 70);
        byte[] f = c.openFile("half.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, before, Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(Status.SUCCESS, c.flush(f).status());
        byte[] after = FileData.pattern(1 << 20, 71);
        List<RegisteredBuffer> regs = c.register(after.length, 4, RemoteAccess.READ);
        int at = 0;
        for (RegisteredBuffer reg : regs) {
            reg.buffer().put(after, at, reg.length());
            at += reg.length();
        }
        List<BufferDescriptor> d = new ArrayList<>(Smb2TestClient.descriptors(regs));
        BufferDescriptor third = d.get(2);
        d.set(2, new BufferDescriptor(third.offset(), third.token() ^ 0x005A5A00, third.length()));
        try (FileData.LogCapture log = new FileData.LogCapture()) {
            Outcome o = c.outcome(c.submit(Smb2.writeRdma(f, 0, after.length, Smb2.CHANNEL_RDMA_V1, d)));
            if (o.response() != null) {
                assertNotEquals(Status.SUCCESS, o.response().status(), "a WRITE whose data did not all arrive");
            }
            c.awaitClosed();
            FileServerFixture.await("the server reports that the WRITE's RDMA Read failed and nothing was written",
                    () -> log.text().contains("RDMA Read of WRITE failed, nothing was written"));
        }
        FileServerFixture.await("the server lets go of the failed connection",
                () -> fixture.server().connections() == 1);
        byte[] now = Files.readAllBytes(shareDir.resolve("half.bin"));
        assertEquals(FileData.sha256(before), FileData.sha256(now),
                "the file holds what it held: no half of the failed WRITE was written ("
                        + (java.util.Arrays.equals(now, 0, 1 << 19, after, 0, 1 << 19) ? "its first half was"
                                : "changed")
                        + ")");
        stillServes(b);
    }
}
