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

    @Override
    public int loadLibrary() throws IOException {
        return RdmaProvider.provider().getVersion();
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
