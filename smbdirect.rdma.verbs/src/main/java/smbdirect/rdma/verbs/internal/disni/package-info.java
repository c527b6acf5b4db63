/**
 * The production {@code VerbsBackend} over DiSNI 2.0 (embedded in the bundle):
 * {@link smbdirect.rdma.verbs.internal.disni.DisniBackend} makes every RDMA CM and verbs call with
 * pre-built, refilled stateful verb calls (no allocation per post;
 * {@link smbdirect.rdma.verbs.internal.disni.ReceiveCallCache} for receives, which DiSNI cannot
 * modify once built); {@link smbdirect.rdma.verbs.internal.disni.DisniNativeAccess} the native steps
 * of the availability probe. The only package that imports {@code com.ibm.disni}.
 */
package smbdirect.rdma.verbs.internal.disni;
