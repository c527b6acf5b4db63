package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;
import java.nio.ByteBuffer;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaProvider;

import smbdirect.rdma.verbs.internal.NativeAccess;
import smbdirect.rdma.verbs.internal.VerbsBackend;

/** The probe's native steps through DiSNI. Stateless. */
public final class DisniNativeAccess implements NativeAccess {

    /**
     * After a first failure, DiSNI's {@code NativeDispatcher} class stays unusable and later calls
     * only see {@code NoClassDefFoundError: Could not initialize class}; the library load is then
     * repeated here (same class loader as the embedded DiSNI) so that the original reason (path,
     * missing rdma-core library) is reported again.
     */
    @Override
    public int loadLibrary() throws IOException {
        try {
            return RdmaProvider.provider().getVersion();
        } catch (NoClassDefFoundError e) {
            try {
                System.loadLibrary("disni");
            } catch (UnsatisfiedLinkError original) {
                original.addSuppressed(e);
                throw original;
            }
            throw e;
        }
    }

    @Override
    public void checkDirectBufferAccess() {
        MemoryUtils.getAddress(ByteBuffer.allocateDirect(8));
    }

    @Override
    public VerbsBackend openBackend() throws IOException {
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        try {
            return new DisniBackend(channel);
        } catch (IOException | RuntimeException e) {
            channel.destroyEventChannel();
            throw e;
        }
    }
}
