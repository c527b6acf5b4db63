/** The served directory: path resolution inside the share, CREATE dispositions, [MS-FSCC] information classes. */
package smbdirect.example.fileserver.internal.share;
