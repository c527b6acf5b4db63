/**
 * The Web Console status page (label {@code smbdirect}): a plain javax servlet plugin, native
 * on Karaf's Web Console and accepted by the Jakarta Felix Web Console 5 through its legacy
 * plugin support.
 */
package smbdirect.impl.osgi.console;
