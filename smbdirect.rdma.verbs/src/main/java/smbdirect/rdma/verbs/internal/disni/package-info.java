/**
 * The DiSNI 2.0 backend: the {@code VerbsBackend} seam over DiSNI's stateful verb calls and its JNI
 * library {@code libdisni}, which the operator installs (it is on neither Maven Central nor Debian).
 * The backend on JDK 17 to 21; on JDK 22+ the rdma-core backend is tried first. DiSNI's gaps (no
 * private data on accept, no reject, CM events without the peer's private data, IRD/ORD forced to
 * the device's maximum, IPv4 only) are declared in its features and worked around by the provider.
 * DiSNI's packages are embedded privately in this bundle; {@code sun.nio.ch} is needed only here.
 * Private to the bundle.
 */
package smbdirect.rdma.verbs.internal.disni;
