/**
 * The contract suite of the RDMA provider SPI ({@code smbdirect.api.rdma}), a plain jar for the
 * providers' test trees (not a bundle, not deployed). Everything here uses the SPI and the public
 * API only.
 *
 * <ul>
 * <li>{@link smbdirect.rdma.tck.RdmaProviderContractTest}: the tests; a provider subclasses it with
 * an {@link smbdirect.rdma.tck.RdmaTckFixture} (two providers that reach each other, a bind
 * address, a way to make progress, a leak check).</li>
 * <li>{@link smbdirect.rdma.tck.TckRecorder}: records one endpoint's callbacks and checks the
 * callback rules as they come (never two at once, nothing after {@code onDisconnected}), for the
 * suite and for a provider's own tests.</li>
 * <li>{@link smbdirect.rdma.tck.EngineScenario}: an SMB Direct session over any provider, shared by
 * the providers' end-to-end tests (both sides' handlers, the client's steps, the checks).</li>
 * <li>{@link smbdirect.rdma.tck.EchoPair}: two endpoints of any provider connected through the SPI
 * with no protocol on top, receives reposted at once and the server optionally echoing; the
 * providers' steady-state allocation tests and the benchmarks' floors run on it.</li>
 * <li>{@link smbdirect.rdma.tck.LoopbackCapture}: dumpcap on {@code lo} and tshark's iWARP and SMB
 * Direct dissectors, the independent judge of what a provider puts on the wire.</li>
 * </ul>
 */
package smbdirect.rdma.tck;
