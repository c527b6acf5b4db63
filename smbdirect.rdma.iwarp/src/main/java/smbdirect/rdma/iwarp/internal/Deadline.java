package smbdirect.rdma.iwarp.internal;

/** A one-shot timer of an {@link IoLoop}: armed and fired on the loop's thread only. */
final class Deadline {

    final Runnable action;
    long at;
    boolean armed;

    Deadline(Runnable action) {
        this.action = action;
    }
}
