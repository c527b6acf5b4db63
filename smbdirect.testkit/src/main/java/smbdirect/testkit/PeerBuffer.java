package smbdirect.testkit;

import java.nio.ByteBuffer;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.rdma.MemoryRegion;

/**
 * Memory a {@link ScriptedPeer} registered on its endpoint: the transport's upper layer reaches it
 * with RDMA Read and Write through {@link #descriptor()} (send it in a message, as an SMB2 client
 * sends its buffers' descriptors in a READ or WRITE request).
 */
public final class PeerBuffer {

    private final MemoryRegion region;

    PeerBuffer(MemoryRegion region) {
        this.region = region;
    }

    /** The Buffer Descriptor V1 ([MS-SMBD] 2.2.3.1) of the whole buffer. */
    public BufferDescriptor descriptor() {
        return new BufferDescriptor(region.address(), region.token(), region.length());
    }

    /** The descriptor encoded as its 16 bytes on the wire. */
    public byte[] encodedDescriptor() {
        ByteBuffer b = ByteBuffer.allocate(16);
        descriptor().encode(b);
        return b.array();
    }

    /** The registered length in bytes. */
    public int length() {
        return region.length();
    }

    /** The remote token (STag / rkey). */
    public int token() {
        return region.token();
    }

    /** Whether the registration is still valid (a Send with Invalidate of its token ends it). */
    public boolean isValid() {
        return region.isValid();
    }

    /** A copy of the buffer's bytes. */
    public byte[] bytes() {
        ByteBuffer b = region.buffer().duplicate();
        b.clear();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Writes {@code data} into the buffer at {@code offset}. */
    public PeerBuffer put(int offset, byte[] data) {
        ByteBuffer b = region.buffer().duplicate();
        b.clear();
        b.position(offset);
        b.put(data);
        return this;
    }

    MemoryRegion region() {
        return region;
    }
}
