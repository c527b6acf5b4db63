package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.BufferDescriptor;

/** READ ([MS-SMB2] 3.3.5.12) and WRITE (3.3.5.13), inline and through RDMA channels (2.2.19, 2.2.21). */
class ReadWriteTest {

    private static final int MAX_RW = 1 << 20;

    @TempDir
    Path dir;
    private Path path;
    private byte[] content;
    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        path = dir.resolve("file.bin");
        content = new byte[300_000];
        new Random(42).nextBytes(content);
        Files.write(path, content);
        h = new Harness(path, MAX_RW);
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private static int u32(FakeConnection.Sent s, int at) {
        return s.le().getInt(at);
    }

    @Test
    void rdmaReadWritesTheFileIntoTheClientBuffersAndAnswersDataRemaining() throws Exception {
        // 3.3.5.12: the data goes by RDMA Write; DataLength 0, DataRemaining the bytes written (cifs smb2_read_data_length)
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 100_000), h.transport.clientBuffer(12, 100_000));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 4, 0, 0,
                RequestBytes.read(200_000, 50_000, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.SUCCESS, Harness.status(s.le(), 0));
        assertEquals(80, s.bytes()[64 + 2] & 0xFF, "DataOffset");
        assertEquals(0, u32(s, 64 + 4), "DataLength");
        assertEquals(200_000, u32(s, 64 + 8), "DataRemaining");
        assertFalse(s.invalidate());
        assertArrayEquals(Arrays.copyOfRange(content, 50_000, 150_000), h.transport.clientMemory.get(11).array());
        assertArrayEquals(Arrays.copyOfRange(content, 150_000, 250_000), h.transport.clientMemory.get(12).array());
    }

    @Test
    void rdmaReadNearTheEndAnswersTheBytesThere() throws Exception {
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 65536));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(65536, content.length - 1000, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.SUCCESS, Harness.status(s.le(), 0));
        assertEquals(1000, u32(s, 64 + 8), "DataRemaining");
    }

    @Test
    void rdmaReadWithInvalidateIsSentWithInvalidateOfTheFirstToken() throws Exception {
        // 3.3.5.12: SMB2_CHANNEL_RDMA_V1_INVALIDATE: the response invalidates the first descriptor's token
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(0x77, 4096), h.transport.clientBuffer(0x78, 4096));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(8192, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1_INVALIDATE, d)));
        assertTrue(s.invalidate());
        assertEquals(0x77, s.token());
    }

    @Test
    void readAtEndOfFileAnswersEndOfFile() throws Exception {
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 4096));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(4096, content.length, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.END_OF_FILE, Harness.status(s.le(), 0));
        assertEquals(9, s.le().getShort(64), "error response StructureSize (2.2.2)");
        FakeConnection.Sent inline = h.run(h.request(Smb2.READ, 1, 1, 0,
                RequestBytes.read(10, content.length + 5, h.fileId(), 0, Smb2.CHANNEL_NONE, List.of())));
        assertEquals(NtStatus.END_OF_FILE, Harness.status(inline.le(), 0));
    }

    @Test
    void failedReadAndWriteWithInvalidateAreStillSentWithInvalidateOfTheFirstToken() throws Exception {
        // 2.2.19, 2.2.21 SMB2_CHANNEL_RDMA_V1_INVALIDATE: the client takes its registration as invalidated
        // by the response whatever the status (Linux cifs registers it afresh for its next I/O)
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(0x51, 4096));
        FakeConnection.Sent eof = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(4096, content.length, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1_INVALIDATE, d)));
        assertEquals(NtStatus.END_OF_FILE, Harness.status(eof.le(), 0));
        assertTrue(eof.invalidate(), "STATUS_END_OF_FILE sent with invalidate");
        assertEquals(0x51, eof.token());
        List<BufferDescriptor> w = List.of(h.transport.clientBuffer(0x52, 4096));
        FakeConnection.Sent tooLong = h.run(h.request(Smb2.WRITE, 1, 1, 0,
                RequestBytes.writeRdma(8192, 0, h.fileId(), Smb2.CHANNEL_RDMA_V1_INVALIDATE, w)));
        assertEquals(NtStatus.INVALID_PARAMETER, Harness.status(tooLong.le(), 0));
        assertTrue(tooLong.invalidate(), "STATUS_INVALID_PARAMETER sent with invalidate");
        assertEquals(0x52, tooLong.token());
        FakeConnection.Sent plain = h.run(h.request(Smb2.READ, 1, 2, 0,
                RequestBytes.read(4096, content.length, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertFalse(plain.invalidate(), "SMB2_CHANNEL_RDMA_V1: a plain Send");
    }

    @Test
    void readOfFewerBytesThanMinimumCountAnswersEndOfFile() throws Exception {
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(100, content.length - 10, h.fileId(), 50, Smb2.CHANNEL_NONE, List.of())));
        assertEquals(NtStatus.END_OF_FILE, Harness.status(s.le(), 0));
    }

    @Test
    void readLongerThanMaxReadSizeAnswersInvalidParameter() throws Exception {
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, MAX_RW + 4096));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 17, 0, 0,
                RequestBytes.read(MAX_RW + 4096, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.INVALID_PARAMETER, Harness.status(s.le(), 0));
    }

    @Test
    void readBeyondTheDescriptorsAnswersInvalidParameter() throws Exception {
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 4096));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(8192, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.INVALID_PARAMETER, Harness.status(s.le(), 0));
        assertEquals(0, h.transport.clientMemory.get(11).get(0));
    }

    @Test
    void readChargedTooFewCreditsAnswersInvalidParameter() throws Exception {
        // 3.3.5.2.5: 128 KiB needs a CreditCharge of 2
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 131072));
        FakeConnection.Sent s = h.run(h.request(Smb2.READ, 1, 0, 0,
                RequestBytes.read(131072, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(NtStatus.INVALID_PARAMETER, Harness.status(s.le(), 0));
    }

    @Test
    void rdmaWriteWritesWhatItReadFromTheClientBuffers() throws Exception {
        // 3.3.5.13: the length is RemainingBytes, the data comes by RDMA Read from the descriptors
        BufferDescriptor a = h.transport.clientBuffer(21, 3000);
        BufferDescriptor b = h.transport.clientBuffer(22, 5000);
        byte[] data = new byte[8000];
        new Random(7).nextBytes(data);
        h.transport.clientMemory.get(21).put(0, data, 0, 3000);
        h.transport.clientMemory.get(22).put(0, data, 3000, 5000);
        FakeConnection.Sent s = h.run(h.request(Smb2.WRITE, 1, 0, 0,
                RequestBytes.writeRdma(8000, 1000, h.fileId(), Smb2.CHANNEL_RDMA_V1_INVALIDATE, List.of(a, b))));
        assertEquals(NtStatus.SUCCESS, Harness.status(s.le(), 0));
        assertEquals(8000, u32(s, 64 + 4), "Count");
        assertTrue(s.invalidate());
        assertEquals(21, s.token());
        byte[] now = Files.readAllBytes(path);
        assertArrayEquals(data, Arrays.copyOfRange(now, 1000, 9000));
        assertArrayEquals(Arrays.copyOfRange(content, 9000, content.length), Arrays.copyOfRange(now, 9000, now.length));
    }

    @Test
    void failedRdmaReadOfWriteWritesNothingAndAnswersNothing() throws Exception {
        BufferDescriptor a = h.transport.clientBuffer(21, 8000);
        Arrays.fill(h.transport.clientMemory.get(21).array(), (byte) 0x5A);
        h.transport.failNextRdma = true;
        FakeConnection.Sent s = h.run(h.request(Smb2.WRITE, 1, 0, 0,
                RequestBytes.writeRdma(8000, 0, h.fileId(), Smb2.CHANNEL_RDMA_V1, List.of(a))));
        assertNull(s, "no response for a WRITE whose data never arrived");
        assertTrue(h.transport.closed.isDone());
        assertArrayEquals(content, Files.readAllBytes(path));
    }

    @Test
    void inlineWriteThenInlineReadGiveTheData() throws Exception {
        byte[] data = "hello, share".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        FakeConnection.Sent w = h.run(h.request(Smb2.WRITE, 1, 0, 0, RequestBytes.writeInline(data, 10, h.fileId())));
        assertEquals(NtStatus.SUCCESS, Harness.status(w.le(), 0));
        assertEquals(data.length, u32(w, 64 + 4));
        FakeConnection.Sent r = h.run(h.request(Smb2.READ, 1, 1, 0,
                RequestBytes.read(data.length, 10, h.fileId(), 0, Smb2.CHANNEL_NONE, List.of())));
        assertEquals(NtStatus.SUCCESS, Harness.status(r.le(), 0));
        assertEquals(data.length, u32(r, 64 + 4), "DataLength");
        int offset = r.bytes()[64 + 2] & 0xFF;
        assertArrayEquals(data, Arrays.copyOfRange(r.bytes(), offset, offset + data.length));
    }

    @Test
    void writeOnAReadOnlyOpenAnswersAccessDenied() throws Exception {
        Open ro = h.connection.opens().add(h.session.id(), h.tree.id(), new Harness.TestOpenFile(h.file, true, false));
        FakeConnection.Sent w = h.run(h.request(Smb2.WRITE, 1, 0, 0,
                RequestBytes.writeInline(new byte[] {1}, 0, new long[] {ro.persistentId(), ro.volatileId()})));
        assertEquals(NtStatus.ACCESS_DENIED, Harness.status(w.le(), 0));
        assertArrayEquals(content, Files.readAllBytes(path));
    }

    @Test
    void registeredBuffersAreReleasedWhenTheConnectionEnds() throws Exception {
        List<BufferDescriptor> d = List.of(h.transport.clientBuffer(11, 4096));
        h.run(h.request(Smb2.READ, 1, 0, 0, RequestBytes.read(4096, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(1, h.transport.registrations.get());
        h.run(h.request(Smb2.READ, 1, 1, 0, RequestBytes.read(4096, 0, h.fileId(), 0, Smb2.CHANNEL_RDMA_V1, d)));
        assertEquals(1, h.transport.registrations.get(), "the buffer is reused");
        h.connection.onDisconnected(h.transport, null);
        assertEquals(1, h.transport.deregistrations.get());
    }
}
