package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded default store: four directory clouds, a kept writer key, one process at a time. */
class ForumStoresTest {
  private static final double SCALE = 0.01;

  @TempDir Path dir;

  @Test
  void aForumInADataDirectoryIsReadBackAfterARestart() throws Exception {
    String id;
    try (ForumStores.Opened opened = ForumStores.embedded(dir, SCALE)) {
      Forum forum = new Forum(opened.store(), Duration.ofSeconds(30));
      id = forum.createTopic("Kept", new Post("ann", "still here after a restart")).id();
      assertThat(opened.store().stats().keySet()).containsExactly("p0", "p1", "p2", "p3");
      assertThat(opened.description()).contains("f=1", "mode PAPER", "p3 12 ms");
    }
    for (int i = 0; i < 4; i++) {
      assertThat(dir.resolve("p" + i + "/objects")).isDirectory();
    }
    assertThat(Files.getPosixFilePermissions(dir.resolve("writer.key")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));

    try (ForumStores.Opened opened = ForumStores.embedded(dir, SCALE)) {
      Forum forum = new Forum(opened.store(), Duration.ofSeconds(30));
      Forum.TopicView view = forum.topicView(id, 10).orElseThrow();
      assertThat(view.entry().title()).isEqualTo("Kept");
      assertThat(view.posts()).hasSize(1);
      assertThat(view.posts().get(0).post().orElseThrow().body())
          .isEqualTo("still here after a restart");
      // Written by the previous process: no receipt here.
      assertThat(view.posts().get(0).receipt()).isEmpty();
    }
  }

  @Test
  void aSecondForumOnTheSameDirectoryIsRefused() throws Exception {
    try (ForumStores.Opened first = ForumStores.embedded(dir, SCALE)) {
      assertThat(first.store().faultsTolerated()).isEqualTo(1);
      assertThatThrownBy(() -> ForumStores.embedded(dir, SCALE))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("is in use by another forum");
    }
    // Released on close.
    ForumStores.embedded(dir, SCALE).close();
  }

  @Test
  void aDamagedKeyFileAndABadTimeScaleAreNamed() throws Exception {
    Files.writeString(dir.resolve("writer.key"), "garbage\nmore garbage\n");
    assertThatThrownBy(() -> ForumStores.embedded(dir, SCALE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("writer.key does not hold an Ed25519 key pair");
    assertThatThrownBy(() -> ForumStores.embedded(dir, 0))
        .hasMessage("timeScale must be in (0, 1], was 0.0");
    // The failed open released the directory.
    Files.delete(dir.resolve("writer.key"));
    ForumStores.embedded(dir, SCALE).close();
  }

  @Test
  void aConfigurationFileNamesTheClouds() throws Exception {
    io.rafestore.config.KeyFiles.write(
        dir.resolve("forum.key"), "forum", io.rafestore.SigningKeys.generate());
    StringBuilder conf = new StringBuilder("f = 1\nwriter.id = forum\nwriter.key = forum.key\n");
    for (String c : new String[] {"a", "b", "c", "d"}) {
      conf.append("cloud.").append(c).append(".type = directory\n");
      conf.append("cloud.").append(c).append(".bucket = clouds/").append(c).append('\n');
    }
    Path file = dir.resolve("forum.properties");
    Files.writeString(file, conf.toString());
    try (ForumStores.Opened opened = ForumStores.fromConfig(file)) {
      assertThat(opened.description()).contains("4 clouds", "a (directory", "f=1");
      Forum forum = new Forum(opened.store(), Duration.ofSeconds(30));
      String id = forum.createTopic("Configured", new Post("cfg", "on configured clouds")).id();
      assertThat(forum.topicView(id, 10).orElseThrow().posts()).hasSize(1);
    }
    assertThat(dir.resolve("clouds/a")).isDirectory();

    // Without a writer the forum cannot post: refused, naming what is missing.
    Path readOnly = dir.resolve("read-only.properties");
    Files.writeString(
        readOnly, conf.toString().replace("writer.id = forum\nwriter.key = forum.key\n", ""));
    assertThatThrownBy(() -> ForumStores.fromConfig(readOnly))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no writer");

    // A mistake in the file is reported with its line and key.
    Path bad = dir.resolve("bad.properties");
    Files.writeString(bad, conf.toString().replace("f = 1", "f = one"));
    assertThatThrownBy(() -> ForumStores.fromConfig(bad))
        .hasMessageContaining(":1:")
        .hasMessageContaining("f");

    // --config and --data exclude each other.
    assertThatThrownBy(() -> ForumApp.Options.parse("--config", "x", "--data", "y"))
        .hasMessageContaining("exclude each other");
  }
}
