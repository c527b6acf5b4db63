package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.List;

/**
 * The DiSNI 2.0 backend as the probe sees it: loads libdisni (checking its JNI version) and checks
 * DiSNI's direct-buffer access ({@code sun.nio.ch}). DiSNI lists no devices and queries none: the
 * probe reads sysfs and the configuration instead. IPv4 only. Stateless.
 */
public final class DisniAccess implements BackendAccess {

    private final NativeAccess access;

    /** @param access the native steps (production: {@code DisniNativeAccess}) */
    public DisniAccess(NativeAccess access) {
        this.access = access;
    }

    @Override
    public String name() {
        return VerbsSettings.DISNI;
    }

    @Override
    public String load() {
        int version;
        try {
            version = access.loadLibrary();
        } catch (IOException | LinkageError e) {
            return VerbsProbe.describeLoadFailure(e);
        }
        if (version != VerbsConstants.DISNI_JNI_VERSION) {
            return "libdisni has JNI version " + version + " but the embedded DiSNI 2.0 needs "
                    + VerbsConstants.DISNI_JNI_VERSION + ": build libdisni from the DiSNI 2.0 sources";
        }
        return null;
    }

    @Override
    public String check() {
        try {
            access.checkDirectBufferAccess();
            return null;
        } catch (IllegalAccessError | NoClassDefFoundError e) {
            return "java.base/sun.nio.ch is not accessible to DiSNI (" + e.getMessage()
                    + "): start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED and export sun.nio.ch "
                    + "as a system package (org.osgi.framework.system.packages.extra=sun.nio.ch)";
        }
    }

    @Override
    public List<String> devices() {
        return null;
    }

    @Override
    public DeviceAttributes query(String device) {
        return null;
    }

    @Override
    public boolean ipv6() {
        return false;
    }

    @Override
    public VerbsBackend openBackend() throws IOException {
        return access.openBackend();
    }
}
