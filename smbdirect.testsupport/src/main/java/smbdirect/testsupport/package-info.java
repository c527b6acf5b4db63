/**
 * What the project's tests share, in every module: the outside judges and how a test meets their
 * absence ({@link smbdirect.testsupport.Judges}: a skip on a developer's machine, a failure in
 * strict mode, the reason on the console through {@code Console}), the record
 * of every skip for the end-of-build summary ({@link smbdirect.testsupport.SkipRecorder}), tshark's
 * view of captures and traces ({@link smbdirect.testsupport.Pdml},
 * {@link smbdirect.testsupport.SmbDirectTrace}) and the exact per-thread allocation counter of the
 * steady-state tests ({@link smbdirect.testsupport.AllocationCounter}). Virtual time and verified
 * traffic are in the sub-packages {@code time} and {@code traffic}.
 *
 * <p>Test code, not a product: no bundle of the appliance contains it.
 */
package smbdirect.testsupport;
