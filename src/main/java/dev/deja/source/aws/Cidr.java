package dev.deja.source.aws;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** Whether an IP address (v4 or v6 literal) lies in a CIDR block; never resolves names. */
final class Cidr {
    private static final Pattern V4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern V6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private Cidr() {}

    static byte[] literal(String ip) {
        if (ip == null || !(V4.matcher(ip).matches() || V6.matcher(ip).matches())) {
            return null;
        }
        try {
            return InetAddress.getByName(ip).getAddress(); // a literal: no lookup
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    static boolean contains(String cidr, String ip) {
        if (cidr == null) {
            return false;
        }
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            return false;
        }
        byte[] net = literal(cidr.substring(0, slash));
        byte[] addr = literal(ip);
        if (net == null || addr == null || net.length != addr.length) {
            return false;
        }
        int bits;
        try {
            bits = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            return false;
        }
        if (bits < 0 || bits > net.length * 8) {
            return false;
        }
        for (int i = 0; i < net.length; i++) {
            int take = Math.min(8, Math.max(0, bits - i * 8));
            if (take == 0) {
                break;
            }
            int mask = (0xFF << (8 - take)) & 0xFF;
            if ((net[i] & mask) != (addr[i] & mask)) {
                return false;
            }
        }
        return true;
    }
}
