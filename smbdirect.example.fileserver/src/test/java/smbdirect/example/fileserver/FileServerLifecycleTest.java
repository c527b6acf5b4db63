package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Status;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.standalone.StandaloneTransport;

/** Several clients at once, a read-only share, and what closing the server releases. */
class FileServerLifecycleTest extends ServedShareTest {

    /** [MS-SMB2] 3.3.1.7: each connection has its own state; both share the files. */
    @Test
    void twoClientsAtOnceEachReadBackTheirOwnBytesAndEachOthers() throws Exception {
        Smb2TestClient a = fixture.mounted();
        Smb2TestClient b = fixture.mounted();
        assertEquals(2, fixture.server().connections());
        byte[] da = FileData.pattern(4 << 20, 1);
        byte[] db = FileData.pattern(4 << 20, 2);
        CompletableFuture<Void> fa = CompletableFuture.runAsync(() -> roundTrip(a, "a.bin", da));
        CompletableFuture<Void> fb = CompletableFuture.runAsync(() -> roundTrip(b, "b.bin", db));
        fa.get(FileServerFixture.WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        fb.get(FileServerFixture.WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        byte[] fileB = a.openFile("b.bin", Smb2.FILE_OPEN);
        assertEquals(FileData.sha256(db), FileData.sha256(a.readAll(fileB, 0, db.length, Smb2.CHANNEL_RDMA_V1, 1)));
        byte[] fileA = b.openFile("a.bin", Smb2.FILE_OPEN);
        assertEquals(FileData.sha256(da), FileData.sha256(b.readAll(fileA, 0, da.length, Smb2.CHANNEL_RDMA_V1, 1)));
        assertEquals(List.of(), a.problems());
        assertEquals(List.of(), b.problems());
    }

    private static void roundTrip(Smb2TestClient c, String name, byte[] data) {
        try {
            byte[] f = c.openFile(name, Smb2.FILE_OVERWRITE_IF);
            for (int i = 0; i < 3; i++) {
                c.writeAll(f, 0, data, i == 1 ? Smb2.CHANNEL_RDMA_V1_INVALIDATE : Smb2.CHANNEL_RDMA_V1, 1 + i);
                assertArrayEquals(data, c.readAll(f, 0, data.length, Smb2.CHANNEL_RDMA_V1, 2));
            }
            assertEquals(Status.SUCCESS, c.close(f).status());
        } catch (Exception e) {
            throw new AssertionError(c + ": " + e, e);
        }
    }

    /** [MS-SMB2] 3.3.5.2.3: requests within the credits granted may be outstanding together. */
    @Test
    void requestsOutstandingTogetherAreAllAnswered() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("many.bin", Smb2.FILE_OVERWRITE_IF);
        List<CompletableFuture<smbdirect.example.fileserver.client.Response>> writes = new java.util.ArrayList<>();
        for (int i = 0; i < 32; i++) {
            writes.add(c.submit(Smb2.writeInline(f, i * 1000L, FileData.pattern(1000, i))));
        }
        for (CompletableFuture<smbdirect.example.fileserver.client.Response> w : writes) {
            assertEquals(Status.SUCCESS, c.await(w, "WRITE").status());
        }
        byte[] all = Files.readAllBytes(shareDir.resolve("many.bin"));
        for (int i = 0; i < 32; i++) {
            assertArrayEquals(FileData.pattern(1000, i), java.util.Arrays.copyOfRange(all, i * 1000, i * 1000 + 1000));
        }
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.7.1, [MS-SMBD] 3.1.4.4: closing the server ends every connection and deregisters every buffer. */
    @Test
    void closingTheServerClosesEveryConnectionAndReleasesEveryRegistration() throws Exception {
        Smb2TestClient a = fixture.mounted();
        Smb2TestClient b = fixture.mounted();
        byte[] fa = a.openFile("a.bin", Smb2.FILE_OVERWRITE_IF);
        a.writeAll(fa, 0, FileData.pattern(1 << 20, 3), Smb2.CHANNEL_RDMA_V1, 2);
        byte[] fb = b.openFile("b.bin", Smb2.FILE_OVERWRITE_IF);
        b.writeAll(fb, 0, FileData.pattern(1 << 20, 4), Smb2.CHANNEL_RDMA_V1, 2);
        assertEquals(2, fixture.serverConnections().length);

        fixture.server().close();

        CloseReason ra = a.awaitClosed();
        CloseReason rb = b.awaitClosed();
        assertNotNull(ra);
        assertNotNull(rb);
        assertEquals(0, fixture.server().connections());
        FileServerFixture.await("the server's transport holds no connection and no listener",
                () -> fixture.serverConnections().length == 0
                        && fixture.serverTransport().getTransportDTO().listeners.length == 0);
        FileServerFixture.await("no endpoint and no registration left on the server's device",
                () -> fixture.serverDevice().endpoints().isEmpty() && fixture.serverRegistrations() == 0);
        fixture.server().close(); // idempotent

        MockProvider late = fixture.fabric().provider("late");
        try (StandaloneTransport t = StandaloneTransport.builder(late).build()) {
            ExecutionException refused = assertThrows(ExecutionException.class, () -> Smb2TestClient.connect(t,
                    fixture.server().listenAddress(), Duration.ofSeconds(5)));
            assertNotNull(refused.getCause(), "nobody listens any more");
        }
    }

    @Test
    void aClientThatGoesAwayLeavesNoOpenBehindAndItsDeleteOnCloseFileIsDeleted() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Smb2TestClient.Created temp = c.create("scratch.tmp", Smb2.READ_WRITE | Smb2.DELETE, Smb2.FILE_ATTRIBUTE_NORMAL,
                Smb2.FILE_CREATE, Smb2.FILE_NON_DIRECTORY_FILE | Smb2.FILE_DELETE_ON_CLOSE);
        assertEquals(Status.SUCCESS, temp.status());
        c.writeAll(temp.fileId(), 0, FileData.pattern(70_000, 5), Smb2.CHANNEL_RDMA_V1, 1);
        assertTrue(Files.exists(shareDir.resolve("scratch.tmp")));
        byte[] kept = c.openFile("kept.txt", Smb2.FILE_CREATE);
        c.writeAll(kept, 0, FileData.pattern(10, 6), Smb2.CHANNEL_NONE, 1);
        c.close();
        FileServerFixture.await("the server closes the opens of a connection that ended ([MS-SMB2] 3.3.7.1)",
                () -> fixture.server().connections() == 0 && !Files.exists(shareDir.resolve("scratch.tmp")));
        assertArrayEquals(FileData.pattern(10, 6), Files.readAllBytes(shareDir.resolve("kept.txt")));
        assertEquals(0, fixture.serverRegistrations());
    }

    /** FileServer: port 0 chooses a port; a share name compares without case ([MS-SMB2] 3.3.5.7). */
    @Test
    void aServerAskedForPort0ListensOnAChosenPortAndReportsItsSettings() throws Exception {
        MockProvider device = fixture.fabric().provider("second-server");
        try (StandaloneTransport t = StandaloneTransport.builder(device).build()) {
            FileServerSettings settings = new FileServerSettings("other", shareDir,
                    new java.net.InetSocketAddress(device.address(), 0), true, null, null, true);
            FileServer second = FileServer.start(t, settings);
            try {
                assertNotEquals(0, second.listenAddress().getPort());
                assertEquals(device.address(), second.listenAddress().getAddress());
                assertEquals(settings, second.settings());
                assertFalse(second.settings().toString().contains("password"), second.settings().toString());
                Smb2TestClient c = Smb2TestClient.connect(fixture.clientTransportFor("second-client"),
                        second.listenAddress(), FileServerFixture.WAIT);
                try {
                    c.mount("anyone", "anything", "\\\\" + device.address().getHostAddress() + "\\OTHER");
                    assertEquals(1, second.connections());
                } finally {
                    c.close();
                }
            } finally {
                second.close();
            }
        }
    }

    /**
     * [MS-SMB2] 3.3.7.1, [MS-SMBD] 3.1.4.5/3.1.4.6: when the server's own RDMA Write of a READ or
     * RDMA Read of a WRITE fails at the provider (the queue pair breaks), that connection ends with
     * no success answered, its buffers come back, the file keeps its bytes, and others go on.
     */
    @Test
    void aProviderFailureOfTheServersRdmaTransferEndsOnlyThatConnection() throws Exception {
        Smb2TestClient b = fixture.mounted();
        byte[] before = FileData.pattern(8 << 20, 21);
        Files.write(shareDir.resolve("big.bin"), before);
        for (smbdirect.api.rdma.WorkRequestType type : new smbdirect.api.rdma.WorkRequestType[] {
            smbdirect.api.rdma.WorkRequestType.RDMA_WRITE, smbdirect.api.rdma.WorkRequestType.RDMA_READ}) {
            Smb2TestClient c = fixture.mounted();
            byte[] f = c.openFile("big.bin", Smb2.FILE_OPEN);
            fixture.serverEndpointOf(c).failNextPost(type,
                    smbdirect.api.rdma.CompletionStatus.TRANSPORT_RETRY_EXCEEDED);
            Smb2TestClient.Outcome o;
            if (type == smbdirect.api.rdma.WorkRequestType.RDMA_WRITE) {
                List<smbdirect.api.RegisteredBuffer> into = c.register(8 << 20, 1, smbdirect.api.RemoteAccess.WRITE);
                o = c.outcome(c.submit(Smb2.readRdma(f, 0, 8 << 20, Smb2.CHANNEL_RDMA_V1,
                        Smb2TestClient.descriptors(into))));
            } else {
                List<smbdirect.api.RegisteredBuffer> from = c.register(8 << 20, 1, smbdirect.api.RemoteAccess.READ);
                from.get(0).buffer().put(FileData.pattern(8 << 20, 22));
                o = c.outcome(c.submit(Smb2.writeRdma(f, 0, 8 << 20, Smb2.CHANNEL_RDMA_V1,
                        Smb2TestClient.descriptors(from))));
            }
            if (o.response() != null) {
                assertNotEquals(Status.SUCCESS, o.response().status(), type + " failed: no success");
            }
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, c.awaitClosed().kind(), type.toString());
            FileServerFixture.await("the server lets go of the broken connection",
                    () -> fixture.server().connections() == 1);
            assertEquals(FileData.sha256(before), FileData.sha256(Files.readAllBytes(shareDir.resolve("big.bin"))),
                    "the file keeps its bytes after a failed " + type);
        }
        assertEquals(Status.SUCCESS, b.echo().status());
        byte[] g = b.openFile("big.bin", Smb2.FILE_OPEN);
        assertEquals(FileData.sha256(before), FileData.sha256(b.readAll(g, 0, 8 << 20, Smb2.CHANNEL_RDMA_V1, 1)));
        assertEquals(List.of(), b.problems());
    }

    /** [MS-SMB2] 3.3.5.6 LOGOFF and 3.3.5.8 TREE_DISCONNECT close the opens they hold: delete-on-close is applied. */
    @Test
    void logoffAndTreeDisconnectCloseTheirOpens() throws Exception {
        Smb2TestClient c = fixture.mounted();
        Smb2TestClient.Created a = c.create("by-tree.tmp", Smb2.READ_WRITE | Smb2.DELETE, 0, Smb2.FILE_CREATE,
                Smb2.FILE_NON_DIRECTORY_FILE | Smb2.FILE_DELETE_ON_CLOSE);
        assertEquals(Status.SUCCESS, a.status());
        assertEquals(Status.SUCCESS, c.treeDisconnect().status());
        FileServerFixture.await("TREE_DISCONNECT closed the open",
                () -> !Files.exists(shareDir.resolve("by-tree.tmp")));
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        Smb2TestClient.Created b = c.create("by-session.tmp", Smb2.READ_WRITE | Smb2.DELETE, 0, Smb2.FILE_CREATE,
                Smb2.FILE_NON_DIRECTORY_FILE | Smb2.FILE_DELETE_ON_CLOSE);
        assertEquals(Status.SUCCESS, b.status());
        assertEquals(Status.SUCCESS, c.logoff().status());
        FileServerFixture.await("LOGOFF closed the open", () -> !Files.exists(shareDir.resolve("by-session.tmp")));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.5 (a SESSION_SETUP with SessionId 0 makes a new session), 3.3.5.6 (LOGOFF ends one). */
    @Test
    void twoSessionsOnOneConnectionAreIndependent() throws Exception {
        Smb2TestClient c = fixture.mounted();
        long first = c.sessionId();
        int firstTree = c.treeId();
        byte[] f = c.openFile("s1.txt", Smb2.FILE_OVERWRITE_IF);
        smbdirect.example.fileserver.client.Smb2TestClient.Logon second = c.logon(FileServerFixture.USER,
                FileServerFixture.PASSWORD);
        assertEquals(Status.SUCCESS, second.status());
        assertNotEquals(first, second.sessionId(), "a second SESSION_SETUP with SessionId 0 makes a new session");
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        byte[] g = c.openFile("s2.txt", Smb2.FILE_OVERWRITE_IF);
        assertEquals(Status.SUCCESS, c.writeInline(g, 0, new byte[2]).status());
        assertEquals(Status.SUCCESS, c.logoff().status());
        c.sessionId(first);
        c.treeId(firstTree);
        assertEquals(Status.SUCCESS, c.writeInline(f, 0, new byte[1]).status(), "the first session goes on");
        c.sessionId(second.sessionId());
        assertEquals(Status.name(Status.USER_SESSION_DELETED), Status.name(c.treeConnect(fixture.sharePath()).status()),
                "the second session is gone");
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMBD] 3.1.4.3: a registration the provider refuses fails that request (STATUS_INSUFFICIENT_RESOURCES). */
    @Test
    void aRegistrationTheServerCannotMakeFailsThatRequestAndNothingElse() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("reg.bin", Smb2.FILE_OVERWRITE_IF);
        byte[] data = FileData.pattern(1 << 20, 12);
        c.writeAll(f, 0, data, Smb2.CHANNEL_NONE, 1);
        Smb2TestClient other = fixture.mounted(); // its buffers are not registered yet either
        fixture.serverDevice().failNextRegistrations(1);
        Smb2TestClient.RdmaResult r = other.readRdma(other.openFile("reg.bin", Smb2.FILE_OPEN), 0, 65536,
                Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(Status.name(Status.INSUFFICIENT_RESOURCES), Status.name(r.status()),
                "the server could not register a buffer for this READ");
        assertTrue(r.response().isErrorBody());
        assertArrayEquals(data, c.readAll(f, 0, data.length, Smb2.CHANNEL_RDMA_V1, 1), "the first client is served");
        assertArrayEquals(java.util.Arrays.copyOf(data, 65536),
                other.readAll(other.openFile("reg.bin", Smb2.FILE_OPEN), 0, 65536, Smb2.CHANNEL_RDMA_V1, 1),
                "the next READ of the same client works");
        assertEquals(List.of(), c.problems());
        assertEquals(List.of(), other.problems());
    }

    /** FileServer.start: the served directory must be a readable directory. */
    @Test
    void theServerRefusesADirectoryThatIsNotOne() throws Exception {
        Path file = Files.write(temp.resolve("plain-file"), new byte[1]);
        assertThrows(IOException.class, () -> FileServerFixture.start(FileServerFixture.settings(file)));
        assertThrows(IOException.class,
                () -> FileServerFixture.start(FileServerFixture.settings(temp.resolve("missing"))));
    }

    /** [MS-SMB2] 3.3.5.9, 3.3.5.13, 3.3.5.21: a read-only share opens for reading only. */
    @Test
    void aReadOnlyShareServesReadsAndRefusesEveryChange() throws Exception {
        fixture.close();
        Files.write(shareDir.resolve("r.txt"), FileData.pattern(5000, 9));
        Files.createDirectory(shareDir.resolve("d"));
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir, true, FileServerFixture.USER,
                FileServerFixture.PASSWORD, false));
        Smb2TestClient c = fixture.mounted();
        Smb2TestClient.Created read = c.create("r.txt", Smb2.READ_ONLY, 0, Smb2.FILE_OPEN, 0);
        assertEquals(Status.SUCCESS, read.status());
        assertArrayEquals(FileData.pattern(5000, 9), c.readAll(read.fileId(), 0, 5000, Smb2.CHANNEL_RDMA_V1, 1));
        assertEquals(2, c.list(c.openDirectory("", Smb2.FILE_OPEN), "*").stream()
                .filter(n -> !n.equals(".") && !n.equals("..")).count());
        assertRefused(c.create("r.txt", Smb2.READ_WRITE, 0, Smb2.FILE_OPEN, 0).status(), "open for writing");
        assertRefused(c.create("new.txt", Smb2.READ_WRITE, 0, Smb2.FILE_CREATE, 0).status(), "create");
        assertRefused(c.create("r.txt", Smb2.READ_WRITE, 0, Smb2.FILE_OVERWRITE_IF, 0).status(), "overwrite");
        assertRefused(c.create("r.txt", Smb2.DELETE, 0, Smb2.FILE_OPEN, Smb2.FILE_DELETE_ON_CLOSE).status(),
                "delete on close");
        assertRefused(c.create("nd", Smb2.READ_ONLY, Smb2.FILE_ATTRIBUTE_DIRECTORY, Smb2.FILE_CREATE,
                Smb2.FILE_DIRECTORY_FILE).status(), "mkdir");
        assertRefused(c.writeInline(read.fileId(), 0, new byte[4]).status(), "WRITE on a read-only open");
        assertRefused(c.setInfo(read.fileId(), Smb2.INFO_FILE, Smb2.FILE_END_OF_FILE_INFORMATION,
                Smb2.endOfFileInformation(0)).status(), "truncate");
        assertRefused(c.setInfo(read.fileId(), Smb2.INFO_FILE, Smb2.FILE_RENAME_INFORMATION,
                Smb2.renameInformation("s.txt", false)).status(), "rename");
        assertEquals(Status.SUCCESS, c.close(read.fileId()).status());
        assertArrayEquals(FileData.pattern(5000, 9), Files.readAllBytes(shareDir.resolve("r.txt")));
        assertFalse(Files.exists(shareDir.resolve("new.txt")));
        assertFalse(Files.exists(shareDir.resolve("nd")));
        assertFalse(Files.exists(shareDir.resolve("s.txt")));
        assertTrue(Files.exists(shareDir.resolve("d")));
        assertEquals(List.of(), c.problems());
    }

    private static void assertRefused(int status, String what) {
        assertNotEquals(Status.SUCCESS, status, what + " on a read-only share");
        assertTrue(status == Status.ACCESS_DENIED || status == Status.MEDIA_WRITE_PROTECTED,
                what + " on a read-only share: " + Status.name(status)
                        + ", expected STATUS_ACCESS_DENIED or STATUS_MEDIA_WRITE_PROTECTED");
    }
}
