package smbdirect.rdma.verbs.internal.osgi;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;

/** A backend with no events and no device work (the provider is started and stopped only). */
final class NullBackend implements VerbsBackend {

    @Override
    public CmId createId() throws IOException {
        throw new IOException("not used");
    }

    @Override
    public void bindAddr(CmId id, InetSocketAddress address) {
    }

    @Override
    public void listen(CmId id, int backlog) {
    }

    @Override
    public void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) {
    }

    @Override
    public void resolveRoute(CmId id, int timeoutMillis) {
    }

    @Override
    public Features features() {
        return new Features("null", false, false, false);
    }

    @Override
    public void connect(CmId id, CmConnParam parameters) {
    }

    @Override
    public void accept(CmId id, CmConnParam parameters) {
    }

    @Override
    public void reject(CmId id, ByteBuffer privateData) {
    }

    @Override
    public int disconnect(CmId id) {
        return 0;
    }

    @Override
    public void destroyId(CmId id) {
    }

    @Override
    public InetSocketAddress localAddress(CmId id) {
        return null;
    }

    @Override
    public InetSocketAddress peerAddress(CmId id) {
        return null;
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) {
        java.util.concurrent.locks.LockSupport.parkNanos(timeoutMillis * 1_000_000L);
        return null;
    }

    @Override
    public void close() {
    }

    @Override
    public Device device(CmId id) throws IOException {
        throw new IOException("not used");
    }

    @Override
    public ProtectionDomain allocPd(Device device) throws IOException {
        throw new IOException("not used");
    }

    @Override
    public CompletionQueue createCq(Device device, int entries, int pollBatch, int vector) throws IOException {
        throw new IOException("not used");
    }

    @Override
    public QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        throw new IOException("not used");
    }

    @Override
    public void destroyQp(CmId id, QueuePair qp) {
    }

    @Override
    public RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        throw new IOException("not used");
    }

    @Override
    public void deregister(RegisteredMemory memory) {
    }

    @Override
    public void postSend(QueuePair qp, SendRequest request) {
    }

    @Override
    public void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) {
    }

    @Override
    public int poll(CompletionQueue cq, CompletionBatch batch) {
        return 0;
    }

    @Override
    public void requestNotify(CompletionQueue cq) {
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) {
        return false;
    }

    @Override
    public void destroyCq(CompletionQueue cq) {
    }

    @Override
    public void deallocPd(ProtectionDomain pd) {
    }
}
