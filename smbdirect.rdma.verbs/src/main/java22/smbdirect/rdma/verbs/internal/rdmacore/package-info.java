/**
 * The rdma-core backend: the {@code VerbsBackend} seam over Debian's (or any distribution's)
 * {@code libibverbs.so.1} and {@code librdmacm.so.1} through the Foreign Function &amp; Memory API,
 * compiled for release 22 and loaded only on a JDK 22+ runtime; nothing is built on the appliance.
 * {@code Abi} holds the C layouts and constants, checked
 * against rdma-core's headers by a compiled probe in the tests;
 * {@code Natives} the downcall handles, the inline verbs
 * reached through {@code ibv_context.ops} as the header reaches them;
 * {@code RdmaCoreBackend} the handles and calls, posting and
 * polling without allocation; {@code AsyncEventReader} the
 * devices' asynchronous events. Private to the bundle.
 */
package smbdirect.rdma.verbs.internal.rdmacore;
