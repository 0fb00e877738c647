package dev.deja;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in HTTP server on the loopback interface that answers every request with its headers at
 * once, then one body byte every {@code byteEveryMs} (a Content-Length it never reaches): the body
 * would take hours. Bounded: each connection stops after {@code maxBytes} bytes, and all stop at
 * {@link #close()}.
 */
public final class SlowBodyServer implements AutoCloseable {
    private final ServerSocket server;
    private final Thread acceptor;

    public SlowBodyServer(String contentType, long byteEveryMs, int maxBytes) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor =
                new Thread(
                        () -> {
                            while (!server.isClosed()) {
                                Socket s;
                                try {
                                    s = server.accept();
                                } catch (IOException e) {
                                    return;
                                }
                                Thread t =
                                        new Thread(
                                                () -> serve(s, contentType, byteEveryMs, maxBytes));
                                t.setDaemon(true);
                                t.start();
                            }
                        },
                        "slow-body-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void serve(Socket s, String contentType, long byteEveryMs, int maxBytes) {
        try (s) {
            byte[] req = new byte[8192];
            s.getInputStream().read(req); // the request's head (small); its content is not needed
            OutputStream out = s.getOutputStream();
            out.write(
                    ("HTTP/1.1 200 OK\r\nContent-Type: "
                                    + contentType
                                    + "\r\nContent-Length: 1000000\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (int i = 0; i < maxBytes && !server.isClosed(); i++) {
                out.write(i == 0 ? '{' : ' ');
                out.flush();
                TimeUnit.MILLISECONDS.sleep(byteEveryMs);
            }
        } catch (IOException e) {
            // the client went away: done
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
