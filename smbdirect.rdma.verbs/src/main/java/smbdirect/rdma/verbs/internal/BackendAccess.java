package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.List;

import smbdirect.api.rdma.TransportType;

/**
 * One way for the provider to reach the RDMA stack (the {@code backend} setting): what the probe
 * needs before a {@link VerbsBackend} exists. Production: {@code RdmaCoreAccess} (libibverbs and
 * librdmacm through the Foreign Function &amp; Memory API, JDK 22+) and {@code DisniAccess}
 * (libdisni). Called by one activating thread at a time.
 */
public interface BackendAccess {

    /** The name the {@code backend} setting uses ({@code rdma-core}, {@code disni}). */
    String name();

    /**
     * Checks the runtime and loads the native libraries. {@code auto} takes the first backend whose
     * load succeeds.
     *
     * @return {@code null} when loaded, else why not and how to mend it, in words
     */
    String load();

    /**
     * After a successful {@link #load}: anything else this backend needs from the JVM.
     *
     * @return {@code null} when nothing is missing, else what and how to mend it
     */
    String check();

    /**
     * The RDMA devices, sorted; {@code null} when this backend cannot list them (the probe then reads
     * sysfs).
     *
     * @throws IOException naming the failed call and why (no kernel RDMA support, ...)
     */
    List<String> devices() throws IOException;

    /**
     * What the device reports about itself; {@code null} when this backend cannot query it (the
     * probe then takes the transport from sysfs and the limits from the configuration).
     */
    DeviceAttributes query(String device) throws IOException;

    /** Whether bind addresses may be IPv6. */
    boolean ipv6();

    /** Opens the RDMA CM event channel and returns the backend that owns it. */
    VerbsBackend openBackend() throws IOException;

    /** A backend that cannot run here, for the reason given. */
    static BackendAccess unavailable(String name, String reason) {
        return new BackendAccess() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String load() {
                return reason;
            }

            @Override
            public String check() {
                return reason;
            }

            @Override
            public List<String> devices() throws IOException {
                throw new IOException(reason);
            }

            @Override
            public DeviceAttributes query(String device) throws IOException {
                throw new IOException(reason);
            }

            @Override
            public boolean ipv6() {
                return false;
            }

            @Override
            public VerbsBackend openBackend() throws IOException {
                throw new IOException(reason);
            }

            @Override
            public String toString() {
                return name + " (unavailable: " + reason + ")";
            }
        };
    }
}
