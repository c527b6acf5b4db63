package smbdirect.example.fileserver.internal.smb2;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.dto.ConnectionDTO;

/**
 * An SMB Direct connection without a fabric, for the protocol's unit tests: sends are recorded, the
 * client's memory is a map of token to buffer that RDMA Reads and Writes copy from and to (at
 * once, on the caller's thread), and an RDMA transfer can be made to fail the way the transport
 * reports it (the connection closes).
 */
final class FakeConnection implements SmbDirectConnection {

    /** One message sent: its bytes and whether it was sent with invalidate of {@code token}. */
    record Sent(byte[] bytes, boolean invalidate, int token) {
        ByteBuffer le() {
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    final Map<Integer, ByteBuffer> clientMemory = new ConcurrentHashMap<>();
    final AtomicInteger registrations = new AtomicInteger();
    final AtomicInteger deregistrations = new AtomicInteger();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    volatile boolean failNextRdma;
    private final int maxReadWriteSize;

    FakeConnection(int maxReadWriteSize) {
        this.maxReadWriteSize = maxReadWriteSize;
    }

    /** A client buffer of {@code size} bytes under {@code token}, and its descriptor. */
    BufferDescriptor clientBuffer(int token, int size) {
        clientMemory.put(token, ByteBuffer.allocate(size));
        return new BufferDescriptor(0x1000L * token, token, size);
    }

    @Override
    public long id() {
        return 7;
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 5445);
    }

    @Override
    public InetSocketAddress peerAddress() {
        return new InetSocketAddress("127.0.0.2", 40000);
    }

    @Override
    public String providerName() {
        return "fake";
    }

    @Override
    public boolean isInitiator() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return !closed.isDone();
    }

    @Override
    public void send(ByteBuffer message, SendCompletion completion) {
        record(message, false, 0);
        completion.sendComplete(message, null);
    }

    @Override
    public void sendWithInvalidate(ByteBuffer message, int remoteToken, SendCompletion completion) {
        record(message, true, remoteToken);
        completion.sendComplete(message, null);
    }

    private void record(ByteBuffer message, boolean invalidate, int token) {
        byte[] b = new byte[message.remaining()];
        message.duplicate().get(b);
        sent.add(new Sent(b, invalidate, token));
    }

    @Override
    public CompletionStage<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access) {
        registrations.incrementAndGet();
        ByteBuffer registered = buffer.slice();
        return CompletableFuture.completedFuture(new RegisteredBuffer() {
            private volatile boolean valid = true;

            @Override
            public ByteBuffer buffer() {
                return registered.duplicate().clear();
            }

            @Override
            public int length() {
                return registered.capacity();
            }

            @Override
            public RemoteAccess access() {
                return access;
            }

            @Override
            public List<BufferDescriptor> descriptors() {
                return List.of();
            }

            @Override
            public boolean isValid() {
                return valid;
            }

            @Override
            public CompletionStage<Void> deregister() {
                if (valid) {
                    valid = false;
                    deregistrations.incrementAndGet();
                }
                return CompletableFuture.completedFuture(null);
            }
        });
    }

    @Override
    public void rdmaWrite(RegisteredBuffer source, int sourceOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        transfer(source, sourceOffset, length, remote, true, completion);
    }

    @Override
    public void rdmaRead(RegisteredBuffer destination, int destinationOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        transfer(destination, destinationOffset, length, remote, false, completion);
    }

    private void transfer(RegisteredBuffer local, int localOffset, int length, List<BufferDescriptor> remote,
            boolean toClient, RdmaCompletionHandler completion) {
        if (failNextRdma) {
            close();
            completion.rdmaComplete(0, new IOException("RDMA " + (toClient ? "Write" : "Read") + " failed: remote access error"));
            return;
        }
        ByteBuffer mine = local.buffer();
        int done = 0;
        for (BufferDescriptor d : remote) {
            if (done == length) {
                break;
            }
            ByteBuffer theirs = clientMemory.get(d.token());
            int n = Math.min(d.length(), length - done);
            for (int i = 0; i < n; i++) {
                if (toClient) {
                    theirs.put(i, mine.get(localOffset + done + i));
                } else {
                    mine.put(localOffset + done + i, theirs.get(i));
                }
            }
            done += n;
        }
        completion.rdmaComplete(done, null);
    }

    @Override
    public ConnectionParameters parameters() {
        return new ConnectionParameters(1364, 1 << 20, 8192, 1 << 20, maxReadWriteSize, Duration.ofSeconds(120), 16, 16,
                true);
    }

    @Override
    public ConnectionDTO getConnectionDTO() {
        return null;
    }

    @Override
    public CompletionStage<Void> close() {
        closed.complete(null);
        return closed;
    }
}
