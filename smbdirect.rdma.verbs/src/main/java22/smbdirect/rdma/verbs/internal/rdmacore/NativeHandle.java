package smbdirect.rdma.verbs.internal.rdmacore;

/**
 * A native object of the backend held by a handle with a state: a call on a destroyed handle is
 * refused with the handle's reason ({@link #gone()}) before anything reaches C
 * ({@link NativeFunction#requireUsable}), so a use after free cannot happen through the backend.
 * Each handle's calls run under its monitor, so a destroy waits for a call in progress on it.
 */
abstract class NativeHandle {

    /** Guarded by this handle's monitor. */
    boolean destroyed;

    /** Why a call on this handle is refused once it was destroyed ("the queue pair was destroyed"). */
    abstract String gone();
}
