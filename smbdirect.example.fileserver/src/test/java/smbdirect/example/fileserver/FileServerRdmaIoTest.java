package smbdirect.example.fileserver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.example.fileserver.client.Response;
import smbdirect.example.fileserver.client.Smb2;
import smbdirect.example.fileserver.client.Smb2TestClient;
import smbdirect.example.fileserver.client.Smb2TestClient.RdmaResult;
import smbdirect.example.fileserver.client.Status;

/**
 * READ and WRITE through the RDMA channels ([MS-SMB2] 2.2.19, 2.2.21, 3.3.5.12, 3.3.5.13; [MS-SMBD]
 * 3.1.4.5, 3.1.4.6): the server RDMA-Reads what a WRITE names and RDMA-Writes what a READ asks
 * into the client's registered buffers, byte-exact, with one or several buffer descriptors, and
 * invalidates the client's token with the response when the channel asks for it.
 */
class FileServerRdmaIoTest extends ServedShareTest {

    /** [MS-SMB2] 3.3.5.13, 3.3.5.12 with the channels of 2.2.21 and 2.2.19; [MS-SMBD] 3.1.4.5, 3.1.4.6. */
    @ParameterizedTest(name = "{0} bytes, dialect {1}, channel {2}, {3} descriptor(s)")
    @CsvSource({
        "0,       0x0311, 0, 1",
        "4096,    0x0311, 1, 1",
        "4096,    0x0302, 2, 1",
        "1048576, 0x0311, 1, 1",
        "1048576, 0x0302, 2, 4",
        "1048576, 0x0311, 1, 16",
        "8388608, 0x0311, 1, 1",
        "8388608, 0x0302, 2, 8"})
    void writtenBytesReadBackByteExact(int size, String dialectHex, int channel, int segments) throws Exception {
        int dialect = Integer.decode(dialectHex);
        Smb2TestClient c = fixture.client();
        assertEquals(Status.SUCCESS, c.negotiate(new int[] {dialect}, Smb2.SIGNING_ENABLED).status());
        assertEquals(Status.SUCCESS, c.logon(FileServerFixture.USER, FileServerFixture.PASSWORD).status());
        assertEquals(Status.SUCCESS, c.treeConnect(fixture.sharePath()).status());
        byte[] data = FileData.pattern(size, size * 31L + channel + segments);
        byte[] f = c.openFile("io.bin", Smb2.FILE_OVERWRITE_IF);
        byte[] back;
        if (size == 0) { // one WRITE and one READ of nothing
            Response w = c.writeInline(f, 0, data);
            assertEquals(Status.name(Status.SUCCESS), Status.name(w.status()));
            assertEquals(0, w.i32(4), "Count");
            Response r = c.readInline(f, 0, 0);
            assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()));
            back = Smb2TestClient.readData(r);
        } else {
            c.writeAll(f, 0, data, channel, segments);
            back = c.readAll(f, 0, size, channel, segments);
        }
        assertEquals(Status.SUCCESS, c.flush(f).status());
        assertEquals(FileData.sha256(data), FileData.sha256(back), "SHA-256 of what was read back");
        assertArrayEquals(data, back);
        assertEquals(Status.SUCCESS, c.close(f).status());
        assertEquals(FileData.sha256(data), FileData.sha256(Files.readAllBytes(shareDir.resolve("io.bin"))),
                "SHA-256 of the file on disk");
        assertEquals(List.of(), c.problems());
    }

    @Test
    void oneWriteAndOneReadOfMaxSizeEachMoveAllBytesInOneRequest() throws Exception {
        Smb2TestClient c = fixture.mounted();
        int size = Math.min(c.maxWriteSize(), c.maxReadSize());
        assertTrue(size >= 1 << 20, "MaxReadSize/MaxWriteSize over RDMA: at least 1 MiB, " + size);
        byte[] data = FileData.pattern(size, 99);
        byte[] f = c.openFile("max.bin", Smb2.FILE_OVERWRITE_IF);
        RdmaResult w = c.writeRdma(f, 0, data, Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(Status.name(Status.SUCCESS), Status.name(w.status()));
        assertEquals(size, w.response().i32(4), "WRITE Count");
        RdmaResult r = c.readRdma(f, 0, size, Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(Status.name(Status.SUCCESS), Status.name(r.status()));
        assertEquals(0, r.response().i32(4), "READ DataLength: no data in the message (2.2.20)");
        assertEquals(size, r.response().i32(8), "DataRemaining: the bytes sent on the channel");
        assertArrayEquals(data, r.data());
        assertEquals(List.of(), c.problems());
    }

    @Test
    void anInvalidatingReadComesAsASendWithInvalidateOfTheClientsToken() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] data = FileData.pattern(65536, 5);
        byte[] f = c.openFile("inv.bin", Smb2.FILE_OVERWRITE_IF);
        c.writeAll(f, 0, data, Smb2.CHANNEL_RDMA_V1, 1);
        RdmaResult r = c.readRdma(f, 0, data.length, Smb2.CHANNEL_RDMA_V1_INVALIDATE, 1);
        assertEquals(Status.SUCCESS, r.status());
        assertArrayEquals(data, r.data());
        assertTrue(r.response().invalidated(), "[MS-SMB2] 3.3.5.12 / [MS-SMBD] 3.1.4.1: the READ response is a "
                + "Send with Invalidate");
        assertEquals(r.descriptors().get(0).token(), r.response().invalidatedToken(), "the descriptor's token");
        assertFalse(r.validAtResponse().get(0), "the client's registration is invalid when the response arrives");

        RdmaResult plain = c.readRdma(f, 0, data.length, Smb2.CHANNEL_RDMA_V1, 1);
        assertFalse(plain.response().invalidated(), "SMB2_CHANNEL_RDMA_V1 does not invalidate");
        assertTrue(plain.validAtResponse().get(0));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.13 SMB2_CHANNEL_RDMA_V1_INVALIDATE, [MS-SMBD] 3.1.4.2 Send with Invalidate. */
    @Test
    void anInvalidatingWriteWithSeveralDescriptorsInvalidatesTheFirstToken() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] data = FileData.pattern(1 << 20, 6);
        byte[] f = c.openFile("inv4.bin", Smb2.FILE_OVERWRITE_IF);
        RdmaResult w = c.writeRdma(f, 0, data, Smb2.CHANNEL_RDMA_V1_INVALIDATE, 4);
        assertEquals(Status.SUCCESS, w.status());
        assertEquals(data.length, w.response().i32(4));
        assertTrue(w.response().invalidated(), "the WRITE response is a Send with Invalidate");
        assertEquals(w.descriptors().get(0).token(), w.response().invalidatedToken());
        assertFalse(w.validAtResponse().get(0));
        assertArrayEquals(data, Files.readAllBytes(shareDir.resolve("inv4.bin")));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 2.2.20 DataRemaining, 3.3.5.12. */
    @Test
    void aReadShortOfTheRequestAtTheEndOfTheFileSaysHowMuchCame() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] data = FileData.pattern(10_000, 8);
        Files.write(shareDir.resolve("short.bin"), data);
        byte[] f = c.openFile("short.bin", Smb2.FILE_OPEN);
        RdmaResult r = c.readRdma(f, 6000, 65536, Smb2.CHANNEL_RDMA_V1, 2);
        assertEquals(Status.SUCCESS, r.status());
        assertEquals(4000, r.response().i32(8), "DataRemaining: what there was");
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 6000, 10_000), r.data());
        RdmaResult end = c.readRdma(f, 10_000, 4096, Smb2.CHANNEL_RDMA_V1, 1);
        assertEquals(Status.name(Status.END_OF_FILE), Status.name(end.status()));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.12, 3.3.5.13, 3.3.5.2.5: multi-credit requests outstanding together. */
    @Test
    void eightRdmaWritesAndEightRdmaReadsOutstandingTogetherAllArriveIntact() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("parallel.bin", Smb2.FILE_OVERWRITE_IF);
        int part = 1 << 20;
        byte[] data = FileData.pattern(8 * part, 77);
        List<List<RegisteredBuffer>> sources = new ArrayList<>();
        List<CompletableFuture<Response>> writes = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            List<RegisteredBuffer> regs = c.register(part, 1, RemoteAccess.READ);
            regs.get(0).buffer().put(data, i * part, part);
            sources.add(regs);
            int channel = i % 2 == 0 ? Smb2.CHANNEL_RDMA_V1 : Smb2.CHANNEL_RDMA_V1_INVALIDATE;
            writes.add(c.submit(Smb2.writeRdma(f, (long) i * part, part, channel, Smb2TestClient.descriptors(regs))));
        }
        for (CompletableFuture<Response> w : writes) {
            Response r = c.await(w, "WRITE");
            assertEquals(Status.SUCCESS, r.status());
            assertEquals(part, r.i32(4));
        }
        for (List<RegisteredBuffer> regs : sources) {
            c.deregister(regs);
        }
        List<List<RegisteredBuffer>> targets = new ArrayList<>();
        List<CompletableFuture<Response>> reads = new ArrayList<>();
        for (int i = 7; i >= 0; i--) {
            List<RegisteredBuffer> regs = c.register(part, 2, RemoteAccess.WRITE);
            targets.add(0, regs);
            int channel = i % 2 == 0 ? Smb2.CHANNEL_RDMA_V1_INVALIDATE : Smb2.CHANNEL_RDMA_V1;
            reads.add(0, c.submit(Smb2.readRdma(f, (long) i * part, part, channel, Smb2TestClient.descriptors(regs))));
        }
        byte[] back = new byte[data.length];
        for (int i = 0; i < 8; i++) {
            Response r = c.await(reads.get(i), "READ " + i);
            assertEquals(Status.SUCCESS, r.status());
            assertEquals(part, r.i32(8), "DataRemaining");
            int at = i * part;
            for (RegisteredBuffer reg : targets.get(i)) {
                reg.buffer().get(back, at, reg.length());
                at += reg.length();
            }
            c.deregister(targets.get(i));
        }
        assertEquals(FileData.sha256(data), FileData.sha256(back));
        assertEquals(FileData.sha256(data), FileData.sha256(Files.readAllBytes(shareDir.resolve("parallel.bin"))));
        assertEquals(List.of(), c.problems());
    }

    /** [MS-SMB2] 3.3.5.13: WRITEs inline and by RDMA at any offset make one file. */
    @Test
    void writesAtOffsetsAndInlineAndRdmaMixedReadBackAsOneFile() throws Exception {
        Smb2TestClient c = fixture.mounted();
        byte[] f = c.openFile("mix.bin", Smb2.FILE_OVERWRITE_IF);
        byte[] expected = new byte[300_000];
        byte[] a = FileData.pattern(100_000, 1);
        byte[] b = FileData.pattern(100, 2);
        byte[] d = FileData.pattern(150_000, 3);
        c.writeAll(f, 0, a, Smb2.CHANNEL_RDMA_V1, 3);
        System.arraycopy(a, 0, expected, 0, a.length);
        c.writeAll(f, 50_000, b, Smb2.CHANNEL_NONE, 1);
        System.arraycopy(b, 0, expected, 50_000, b.length);
        c.writeAll(f, 150_000, d, Smb2.CHANNEL_RDMA_V1_INVALIDATE, 2);
        System.arraycopy(d, 0, expected, 150_000, d.length);
        assertArrayEquals(expected, c.readAll(f, 0, expected.length, Smb2.CHANNEL_RDMA_V1, 5));
        assertArrayEquals(expected, c.readAll(f, 0, expected.length, Smb2.CHANNEL_NONE, 1));
        assertArrayEquals(expected, Files.readAllBytes(shareDir.resolve("mix.bin")));
        assertEquals(List.of(), c.problems());
    }
}
