package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Status;

/**
 * Well-formed requests of every command with a few bytes of their body changed at random (a
 * fixed seed, so a failure repeats): [MS-SMB2] 3.3.5.2 asks the server to check what it reads.
 * Each one must get a well-formed response (any status) or end its own connection; none may
 * go unanswered, throw in the server's handlers, disturb another client or leave anything
 * registered once everything is closed.
 */
class FileServerMutatedRequestsTest extends ServedShareTest {

    /** A mounted client with one file and one directory open, and buffers registered for RDMA. */
    private static final class Target {
        final Smb2TestClient client;
        byte[] file;
        byte[] directory;
        final List<RegisteredBuffer> into;
        final List<RegisteredBuffer> from;

        Target(FileServerFixture fixture) throws Exception {
            client = fixture.mounted();
            file = client.openFile("target.bin", Smb2.FILE_OPEN_IF);
            client.writeAll(file, 0, FileData.pattern(8192, 1), Smb2.CHANNEL_NONE, 1);
            directory = client.openDirectory("", Smb2.FILE_OPEN);
            into = client.register(8192, 2, RemoteAccess.WRITE);
            from = client.register(8192, 1, RemoteAccess.READ);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {20261128L, 1L, 445L, 5445L})
    void mutatedRequestsOfEveryCommandAreAnsweredOrEndOnlyTheirConnection(long seed) throws Exception {
        run(seed, false);
    }

    /**
     * The same with bytes of the header changed instead ([MS-SMB2] 2.2.1.2: CreditCharge, Status,
     * CreditRequest, Flags, NextCommand, TreeId, SessionId, Signature; never ProtocolId, Command or
     * MessageId, by which the answer is recognised).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7L, 64L})
    void mutatedHeadersAreAnsweredOrEndOnlyTheirConnection(long seed) throws Exception {
        run(seed, true);
    }

    private static final int[] MUTABLE_HEADER_BYTES = {6, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 52, 56, 60, 63};

    private void run(long seed, boolean header) throws Exception {
        Smb2TestClient bystander = fixture.mounted();
        byte[] kept = bystander.openFile("kept.bin", Smb2.FILE_OVERWRITE_IF);
        bystander.writeAll(kept, 0, FileData.pattern(50_000, 2), Smb2.CHANNEL_RDMA_V1, 1);

        List<Function<Target, Smb2.Body>> templates = List.of(
            t -> Smb2.create("dir\\name.txt", Smb2.READ_WRITE, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN_IF, 0),
            t -> Smb2.create("x.txt", Smb2.READ_WRITE, 0, Smb2.SHARE_ALL, Smb2.FILE_OPEN_IF, 0, 0x09,
                    List.of("MxAc", "QFid"), List.of(new byte[0], new byte[0])),
            t -> Smb2.close(t.file, Smb2.CLOSE_FLAG_POSTQUERY_ATTRIB),
            t -> Smb2.flush(t.file),
            t -> Smb2.readInline(t.file, 0, 4096, 0),
            t -> Smb2.writeInline(t.file, 100, FileData.pattern(300, 3)),
            t -> Smb2.readRdma(t.file, 0, 8192, Smb2.CHANNEL_RDMA_V1_INVALIDATE, Smb2TestClient.descriptors(t.into)),
            t -> Smb2.writeRdma(t.file, 0, 8192, Smb2.CHANNEL_RDMA_V1, Smb2TestClient.descriptors(t.from)),
            t -> Smb2.queryInfo(t.file, Smb2.INFO_FILE, Smb2.FILE_ALL_INFORMATION, 4096, 0),
            t -> Smb2.queryInfo(t.directory, Smb2.INFO_FILESYSTEM, Smb2.FILE_FS_FULL_SIZE_INFORMATION, 32, 0),
            t -> Smb2.queryInfo(t.file, Smb2.INFO_SECURITY, 0, 4096, 7),
            t -> Smb2.setInfo(t.file, Smb2.INFO_FILE, Smb2.FILE_END_OF_FILE_INFORMATION,
                    Smb2.endOfFileInformation(5000)),
            t -> Smb2.setInfo(t.file, Smb2.INFO_FILE, Smb2.FILE_BASIC_INFORMATION,
                    Smb2.basicInformation(0, 0, Smb2.filetime(1_600_000_000_000L), 0, 0)),
            t -> Smb2.setInfo(t.file, Smb2.INFO_FILE, Smb2.FILE_RENAME_INFORMATION,
                    Smb2.renameInformation("renamed.bin", true)),
            t -> Smb2.queryDirectory(t.directory, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, Smb2.RESTART_SCANS, "*",
                    8192),
            t -> Smb2.ioctl(Smb2.FSCTL_VALIDATE_NEGOTIATE_INFO, Smb2.RELATED_FILE_ID, new byte[26], 24,
                    Smb2.IOCTL_IS_FSCTL),
            t -> Smb2.treeConnect("\\\\server\\share"),
            t -> Smb2.changeNotify(t.directory, 1, 4096),
            t -> Smb2.lock(t.file, 0, 10),
            t -> Smb2.empty(Smb2.ECHO));

        SplittableRandom random = new SplittableRandom(seed);
        Target t = new Target(fixture);
        int answered = 0;
        int closed = 0;
        List<String> statuses = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Smb2.Body body = templates.get(i % templates.size()).apply(t);
            long id = t.client.takeMessageIds(body.creditCharge());
            ByteBuffer m = Smb2.le(64 + body.bytes().length);
            Smb2.putHeader(m, body.command(), body.creditCharge(), 64, 0, 0, id, t.client.treeId(),
                    t.client.sessionId());
            m.put(body.bytes());
            byte[] mutated = m.array();
            int flips = 1 + random.nextInt(3);
            for (int k = 0; k < flips; k++) {
                int at = header ? MUTABLE_HEADER_BYTES[random.nextInt(MUTABLE_HEADER_BYTES.length)]
                        : 64 + random.nextInt(body.bytes().length);
                mutated[at] = random.nextInt(3) == 0 ? (byte) 0xFF : (byte) random.nextInt(256);
            }
            String what = "request " + i + " (command " + body.command() + ", " + flips + " bytes changed)";
            Smb2TestClient.Outcome o;
            try {
                o = t.client.sendRaw(mutated, id, body.command());
            } catch (AssertionError e) {
                throw new AssertionError(what + ": " + e.getMessage(), e);
            }
            if (o.response() != null) {
                answered++;
                statuses.add(Status.name(o.response().status()));
                assertEquals(List.of(), t.client.problems(), what);
                if (body.command() == Smb2.CLOSE && o.response().status() == Status.SUCCESS) {
                    try { // whichever it closed, both are open again for the next requests
                        t.client.close(t.file);
                        t.client.close(t.directory);
                        t.file = t.client.openFile("target.bin", Smb2.FILE_OPEN_IF);
                        t.directory = t.client.openDirectory("", Smb2.FILE_OPEN);
                    } catch (AssertionError e) {
                        if (!t.client.closed().isDone()) {
                            throw e;
                        }
                        closed++; // a changed header (a CreditCharge, say) ended it with these requests
                        t = new Target(fixture);
                    }
                }
            } else {
                closed++;
                t = new Target(fixture);
            }
            if (i % 50 == 49) {
                assertEquals(Status.SUCCESS, bystander.echo().status(), "the bystander after " + what);
            }
        }
        assertTrue(answered > (header ? 100 : 200), answered + " answered, " + closed + " connections ended: "
                + statuses);
        System.out.println("seed " + seed + ": " + answered + " answered, " + closed + " connections ended; statuses "
                + new java.util.TreeMap<>(statuses.stream().collect(java.util.stream.Collectors.groupingBy(x -> x,
                        java.util.stream.Collectors.counting()))));
        assertArrayEquals(FileData.pattern(50_000, 2), bystander.readAll(kept, 0, 50_000, Smb2.CHANNEL_RDMA_V1, 1),
                "another client's file and connection are untouched");
        assertEquals(List.of(), bystander.problems());
    }
}
