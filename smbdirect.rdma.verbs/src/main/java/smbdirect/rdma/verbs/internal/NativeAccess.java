package smbdirect.rdma.verbs.internal;

import java.io.IOException;

/**
 * The native steps of the availability probe, in the order the probe runs them. Production:
 * {@code smbdirect.rdma.verbs.internal.disni.DisniNativeAccess}; tests substitute failures.
 * Implementations are called by one activating thread at a time.
 */
public interface NativeAccess {

    /**
     * Loads libdisni through DiSNI's provider ({@code RdmaProvider.provider()}) and returns the
     * native library's JNI version. Throws what DiSNI throws ({@link UnsatisfiedLinkError},
     * {@link NoClassDefFoundError}, {@link IOException}).
     */
    int loadLibrary() throws IOException;

    /** Reads the address of a direct buffer the way DiSNI does (needs {@code sun.nio.ch}). */
    void checkDirectBufferAccess();

    /** Opens the RDMA CM event channel and returns the backend that owns it. */
    VerbsBackend openBackend() throws IOException;
}
