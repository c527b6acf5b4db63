package smbdirect.rdma.verbs.internal.osgi;

/**
 * Registered by the verbs component in every case, with the service properties
 * {@code smbdirect.provider=verbs} and {@code smbdirect.provider.status} ("available" or
 * "unavailable: <reason>"), so management code can find out why no verbs RdmaProvider is
 * registered without importing this package: {@code getServiceReferences((String) null,
 * "(smbdirect.provider.status=*)")}. Immutable.
 */
public interface VerbsStatus {

    /** Service property carrying the status text. */
    String STATUS = "smbdirect.provider.status";

    boolean available();

    /** "available" or "unavailable: &lt;reason&gt;". */
    String status();
}
