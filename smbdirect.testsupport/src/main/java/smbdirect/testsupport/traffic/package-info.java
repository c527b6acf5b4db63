/**
 * Verified traffic over a connection of the public API ({@link smbdirect.testsupport.traffic.Traffic}):
 * numbered messages whose every byte is checked on arrival, in order and without gaps. The engine's
 * tests use it directly, the test kit behind its public {@code VerifiedTraffic} (the kit's bundle
 * carries this package privately).
 *
 * <p>Depends on nothing but the JDK and {@code smbdirect.api}, so that a bundle may carry it.
 */
package smbdirect.testsupport.traffic;
