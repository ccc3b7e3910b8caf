package io.rafestore.drivers.gcs.probe;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.ObjectKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@code GcsModulePathTest} in a JVM of its own, from the class path while the driver is on
 * the module path: makes a {@code gcs} driver through {@link Drivers} and gets one object from a
 * minimal local HTTP server, printing the driver's module and the body. (In a package of its own:
 * {@code io.rafestore.drivers.gcs} belongs to the named module there.)
 */
public final class ModulePathProbe {
  static final byte[] BODY = "from the module path".getBytes(StandardCharsets.UTF_8);

  private ModulePathProbe() {}

  public static void main(String[] args) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> answer(server), "probe-server");
      answering.setDaemon(true);
      answering.start();
      CloudSpec spec =
          CloudSpec.of("g", "gcs")
              .withBucket("b")
              .withEndpoint("http://127.0.0.1:" + server.getLocalPort())
              .withOption("anonymous", "true")
              .withOption("projectId", "p")
              .withOption("maxAttempts", "1");
      try (CloudDriver d = Drivers.create(spec)) {
        System.out.println("driver in " + d.getClass().getModule());
        byte[] got = d.get(ObjectKey.of("x"), Optional.empty()).get(30, TimeUnit.SECONDS);
        System.out.println("body: " + new String(got, StandardCharsets.UTF_8));
      }
    }
  }

  /** Every request gets the same 200 answer; a GET ends at its blank line. */
  private static void answer(ServerSocket server) {
    while (!server.isClosed()) {
      try (Socket c = server.accept()) {
        InputStream in = c.getInputStream();
        int state = 0; // how much of "\r\n\r\n" has been read
        while (state < 4) {
          int b = in.read();
          if (b < 0) {
            break;
          }
          state = (b == '\r' && state % 2 == 0) || (b == '\n' && state % 2 == 1) ? state + 1 : 0;
        }
        OutputStream out = c.getOutputStream();
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                    + BODY.length
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(BODY);
        out.flush();
      } catch (IOException e) {
        // Closed at the end, or the client went away: nothing to answer.
      }
    }
  }
}
