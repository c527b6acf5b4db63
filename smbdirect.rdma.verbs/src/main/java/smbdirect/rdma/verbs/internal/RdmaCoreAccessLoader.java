package smbdirect.rdma.verbs.internal;

import java.lang.reflect.InvocationTargetException;

/**
 * Finds the rdma-core backend without touching it on a JVM that cannot load it: its classes are
 * compiled for release 22 (the Foreign Function &amp; Memory API), so on an older runtime, or in a
 * bundle built without a JDK 22+ compiler, it is reported unavailable with the reason; so it is on a
 * platform other than x86-64 Linux with glibc, whose C structure layouts it hard-codes
 * ({@link NativePlatform}). Stateless.
 */
public final class RdmaCoreAccessLoader {

    /** The entry point of the rdma-core backend (release 22). */
    static final String ACCESS_CLASS = "smbdirect.rdma.verbs.internal.rdmacore.RdmaCoreAccess";
    /** The first JDK whose Foreign Function &amp; Memory API is final. */
    public static final int MIN_FEATURE = 22;

    private RdmaCoreAccessLoader() {
    }

    /** The rdma-core backend's access, or one that says why it cannot run in this JVM. */
    public static BackendAccess load() {
        return load(Runtime.version().feature(), NativePlatform.current(), RdmaCoreAccessLoader.class.getClassLoader());
    }

    /**
     * On a platform whose structure layouts are not the backend's, the backend is refused before
     * any of its classes load (nothing reaches C).
     */
    static BackendAccess load(int javaFeature, NativePlatform platform, ClassLoader loader) {
        String refusal = platform.rdmaCoreRefusal();
        if (refusal != null) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, refusal);
        }
        if (javaFeature < MIN_FEATURE) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, "needs JDK " + MIN_FEATURE
                    + "+ (the Foreign Function & Memory API); this JVM is " + System.getProperty("java.version")
                    + ": run the appliance on JDK " + MIN_FEATURE + " or later, or use backend disni");
        }
        Class<?> type;
        try {
            type = Class.forName(ACCESS_CLASS, true, loader);
        } catch (ClassNotFoundException e) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, "this build of smbdirect.rdma.verbs carries no "
                    + "rdma-core backend (it was built without a JDK " + MIN_FEATURE + "+ compiler)");
        } catch (LinkageError e) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, "its classes do not load here (" + e + ")");
        }
        try {
            return (BackendAccess) type.getConstructor().newInstance();
        } catch (InvocationTargetException e) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, "it could not be initialised ("
                    + e.getCause() + ")");
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return BackendAccess.unavailable(VerbsSettings.RDMA_CORE, "it could not be initialised (" + e + ")");
        }
    }
}
