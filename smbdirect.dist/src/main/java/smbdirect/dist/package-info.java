/** The appliance runtime glue (not exported). */
package smbdirect.dist;
