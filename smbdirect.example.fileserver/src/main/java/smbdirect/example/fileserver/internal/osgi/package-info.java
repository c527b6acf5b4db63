/** The OSGi component: one file server per configuration (PID smbdirect.example.fileserver), Metatype. */
package smbdirect.example.fileserver.internal.osgi;
