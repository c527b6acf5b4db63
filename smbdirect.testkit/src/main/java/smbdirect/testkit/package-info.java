/**
 * A test kit for SMB2/3 servers and clients built on the SMB Direct transport.
 *
 * <ul>
 * <li>{@link smbdirect.testkit.SmbDirectTestKit}: one deterministic mock fabric, one
 * {@link smbdirect.testkit.VirtualClock}, transports built over it and scripted peers; everything
 * runs on the test's thread and {@link smbdirect.testkit.SmbDirectTestKit#advance} moves virtual
 * time, so a keepalive or negotiation timeout scenario takes microseconds. A handler of the upper
 * layer that throws fails the test, with its exception as the cause.</li>
 * <li>{@link smbdirect.testkit.ScriptedPeer}: the far end of one connection, a correct SMB Direct
 * peer in either role by default (negotiation, the credit rules of [MS-SMBD] 3.1.5.1 and 3.1.5.9
 * with the last-credit rule, fragmentation and reassembly, keepalive replies, RDMA Read and Write
 * against buffers it registers) that misbehaves in one chosen way on demand: a
 * {@link smbdirect.testkit.ScriptedPeer.Hook} sees every message before it goes out and may change
 * any field or drop it ({@link smbdirect.testkit.Frame}: typed fields of every message); withhold or
 * flood credits, stall, disconnect, crash, send with invalidate, send without a credit
 * ({@link smbdirect.testkit.ScriptedPeer#sendWithoutCredit}), send any frame built with
 * {@link smbdirect.testkit.Frame}'s factories, break a fragmented message off in the middle
 * ({@link smbdirect.testkit.ScriptedPeer#sendWithFault}).
 * It records what it saw ({@link smbdirect.testkit.PeerFragment}s, messages, credits) for
 * assertions.</li>
 * <li>{@link smbdirect.testkit.RecordingHandler}: the upper layer's side of a connection in a
 * test: keeps the messages and the close reason.</li>
 * <li>{@link smbdirect.testkit.RecordingListenerEvents}: the listener events a server was told
 * (accepted, refused, failed negotiations with the rule and value), for assertions.</li>
 * <li>{@link smbdirect.testkit.VerifiedTraffic}: continuous traffic whose every byte is checked on
 * arrival, in order and without gaps, for tests in wall-clock time (threaded fabrics, OSGi).</li>
 * </ul>
 *
 * <p>Not thread-safe unless a class says so: a test drives the kit from one thread.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package smbdirect.testkit;
