package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostValueTest {

    @Test
    void namesAddressesAndPortsAreValid() {
        for (String host : List.of(
                "",
                "example.com",
                "example.com:8080",
                "127.0.0.1:65535",
                "h:",
                "a%2Fb",
                "x-y_z~.!$&'()*+,;=",
                "[::1]",
                "[::1]:443",
                "[::1]:",
                "[v1.fe80::a+en1]")) {
            assertThat(HostValue.isValid(host)).as(host).isTrue();
        }
    }

    @Test
    void anythingElseIsRefused() {
        for (String host : List.of(
                "exa mple.com",
                "a/b",
                "a@b",
                "a%2",
                "a%zz",
                "h:123456",
                "h:80a",
                "h:8:0",
                "[::1",
                "[]",
                "[::1]x",
                "[::1]:8x",
                "[::1/]",
                "a[b]")) {
            assertThat(HostValue.isValid(host)).as(host).isFalse();
        }
    }
}
