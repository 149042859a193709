//! Which addresses the server may be made to call: only globally reachable ones.
//!
//! Classified from IANA's special-purpose address registries (the "Globally Reachable"
//! column; entries up to RFC 9637, 2024):
//! <https://www.iana.org/assignments/iana-ipv4-special-registry/> and
//! <https://www.iana.org/assignments/iana-ipv6-special-registry/>.
//! Where the registry says "N/A" (6to4, Teredo) or leaves the question to what an address
//! embeds (IPv4-mapped, IPv4-compatible, SIIT-translated, NAT64), the embedded IPv4 address
//! is classified instead: a host that forwards such a packet would deliver it to that IPv4
//! address. IPv6 outside `2000::/3` (the only block IANA allocates as global unicast) is not
//! global whatever it is, so the deprecated site-local `fec0::/10` and anything allocated
//! later is refused until this table says otherwise. Multicast and broadcast are never a
//! webhook receiver.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// An IPv4 block of the registry that is not globally reachable.
struct V4Block(u32, u8);

/// IPv4 special-purpose blocks with "Globally Reachable: False", plus multicast
/// (`224.0.0.0/4`, RFC 5771) and the deprecated 6to4 relay anycast (`192.88.99.0/24`).
const NOT_GLOBAL_V4: [V4Block; 16] = [
    V4Block(0x0000_0000, 8),  // 0.0.0.0/8 "this network" (RFC 791)
    V4Block(0x0a00_0000, 8),  // 10.0.0.0/8 private use (RFC 1918)
    V4Block(0x6440_0000, 10), // 100.64.0.0/10 shared address space (RFC 6598)
    V4Block(0x7f00_0000, 8),  // 127.0.0.0/8 loopback (RFC 1122)
    V4Block(0xa9fe_0000, 16), // 169.254.0.0/16 link local (RFC 3927)
    V4Block(0xac10_0000, 12), // 172.16.0.0/12 private use (RFC 1918)
    V4Block(0xc000_0000, 24), // 192.0.0.0/24 IETF protocol assignments (RFC 6890)
    V4Block(0xc000_0200, 24), // 192.0.2.0/24 documentation TEST-NET-1 (RFC 5737)
    V4Block(0xc058_6300, 24), // 192.88.99.0/24 6to4 relay anycast, deprecated (RFC 7526)
    V4Block(0xc0a8_0000, 16), // 192.168.0.0/16 private use (RFC 1918)
    V4Block(0xc612_0000, 15), // 198.18.0.0/15 benchmarking (RFC 2544)
    V4Block(0xc633_6400, 24), // 198.51.100.0/24 documentation TEST-NET-2 (RFC 5737)
    V4Block(0xcb00_7100, 24), // 203.0.113.0/24 documentation TEST-NET-3 (RFC 5737)
    V4Block(0xe000_0000, 4),  // 224.0.0.0/4 multicast (RFC 5771)
    V4Block(0xf000_0000, 4),  // 240.0.0.0/4 reserved (RFC 1112)
    V4Block(0xffff_ffff, 32), // 255.255.255.255/32 limited broadcast (RFC 919)
];

/// Addresses inside a not-global IPv4 block that the registry marks globally reachable.
const GLOBAL_V4_EXCEPTIONS: [Ipv4Addr; 2] = [
    Ipv4Addr::new(192, 0, 0, 9),  // Port Control Protocol anycast (RFC 7723)
    Ipv4Addr::new(192, 0, 0, 10), // Traversal Using Relays around NAT anycast (RFC 8155)
];

/// An IPv6 block inside `2000::/3` with "Globally Reachable: False" (or N/A without an
/// embedded IPv4 address to judge by).
struct V6Block(u128, u8);

const NOT_GLOBAL_V6: [V6Block; 3] = [
    // Takes in Teredo (2001::/32, RFC 4380), whose relays would reach the IPv4 client it
    // embeds, and benchmarking (2001:2::/48, RFC 5180).
    V6Block(0x2001_0000 << 96, 23), // 2001::/23 IETF protocol assignments (RFC 2928)
    V6Block(0x2001_0db8 << 96, 32), // 2001:db8::/32 documentation (RFC 3849)
    V6Block(0x3fff_0000 << 96, 20), // 3fff::/20 documentation (RFC 9637)
];

/// Blocks inside 2001::/23 that the registry marks globally reachable.
const GLOBAL_V6_EXCEPTIONS: [V6Block; 7] = [
    V6Block((0x2001_0001 << 96) | 1, 128), // 2001:1::1 Port Control Protocol anycast
    V6Block((0x2001_0001 << 96) | 2, 128), // 2001:1::2 TURN anycast
    V6Block((0x2001_0001 << 96) | 3, 128), // 2001:1::3 DNS-SD service registration
    V6Block(0x2001_0003 << 96, 32),        // 2001:3::/32 AMT (RFC 7450)
    V6Block(0x2001_0004_0112 << 80, 48),   // 2001:4:112::/48 AS112-v6 (RFC 7535)
    V6Block(0x2001_0020 << 96, 28),        // 2001:20::/28 ORCHIDv2 (RFC 7343)
    V6Block(0x2001_0030 << 96, 28),        // 2001:30::/28 drone remote ID (RFC 9374)
];

fn in_v4(address: Ipv4Addr, block: &V4Block) -> bool {
    let mask = if block.1 == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(block.1))
    };
    u32::from(address) & mask == block.0 & mask
}

fn in_v6(address: Ipv6Addr, block: &V6Block) -> bool {
    let mask = if block.1 == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(block.1))
    };
    u128::from(address) & mask == block.0 & mask
}

/// Whether `address` is globally reachable: a webhook may be delivered there.
pub fn is_global(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => is_global_v6(v6),
    }
}

fn is_global_v4(address: Ipv4Addr) -> bool {
    GLOBAL_V4_EXCEPTIONS.contains(&address)
        || !NOT_GLOBAL_V4.iter().any(|block| in_v4(address, block))
}

fn is_global_v6(address: Ipv6Addr) -> bool {
    if let Some(embedded) = embedded_v4(address) {
        return embedded.is_some_and(is_global_v4);
    }
    let bits = u128::from(address);
    // 2000::/3: global unicast; everything else (loopback, unspecified, ULA, link-local,
    // site-local, multicast, discard-only, SRv6 SIDs, unallocated) is not.
    if bits >> 125 != 0b001 {
        return false;
    }
    GLOBAL_V6_EXCEPTIONS
        .iter()
        .any(|block| in_v6(address, block))
        || !NOT_GLOBAL_V6.iter().any(|block| in_v6(address, block))
}

/// For the IPv6 forms that carry an IPv4 address: `Some` with that address to judge by
/// (`None` inside when the form is one but nothing may be reached through it); `None` for
/// an address of no such form.
fn embedded_v4(address: Ipv6Addr) -> Option<Option<Ipv4Addr>> {
    let bits = u128::from(address);
    let low32 = Ipv4Addr::from(bits as u32);
    match bits >> 32 {
        // ::ffff:a.b.c.d IPv4-mapped (RFC 4291)
        0x0000_0000_0000_0000_0000_ffff => Some(Some(low32)),
        // ::a.b.c.d IPv4-compatible, deprecated (RFC 4291); :: and ::1 are not embedded
        // addresses but unspecified and loopback, refused the same way.
        0 => Some(Some(low32).filter(|_| bits > 1)),
        // ::ffff:0:a.b.c.d SIIT-translated (RFC 2765)
        0x0000_0000_0000_0000_ffff_0000 => Some(Some(low32)),
        // 64:ff9b::a.b.c.d NAT64 well-known prefix (RFC 6052)
        0x0064_ff9b_0000_0000_0000_0000 => Some(Some(low32)),
        _ => match address.segments() {
            // 2002:AABB:CCDD::/48 6to4 (RFC 3056) carries AA.BB.CC.DD
            [0x2002, high, low, ..] => Some(Some(Ipv4Addr::from(
                (u32::from(high) << 16) | u32::from(low),
            ))),
            // 64:ff9b:1::/48 local-use translation (RFC 8215): not global by the registry
            [0x0064, 0xff9b, 0x0001, ..] => Some(None),
            _ => None,
        },
    }
}

/// Which addresses outgoing calls may reach: the global ones, and those the operator opened.
#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    /// Every address (`--webhooks-allow-private`): for development and closed networks.
    pub allow_all: bool,
    /// Networks allowed although they are not global (`--webhooks-allow-network`), e.g. a
    /// receiver on the operator's own private network.
    pub allowed_networks: Vec<IpNet>,
}

impl AddressPolicy {
    pub fn permits(&self, address: IpAddr) -> bool {
        self.allow_all
            || is_global(address)
            || self
                .allowed_networks
                .iter()
                .any(|network| network.contains(&address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(text: &str) -> bool {
        is_global(text.parse().unwrap())
    }

    #[test]
    fn forms_of_loopback_and_private_addresses_are_not_global() {
        for address in [
            "127.0.0.1",
            "127.255.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.0.170",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "192.88.99.1",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::8.8.8.8",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2001:db8::1",
            "3fff::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "100::1",
            "5f00::1",
            "4000::1",
        ] {
            assert!(!global(address), "{address} passed as global");
        }
    }

    #[test]
    fn public_addresses_are_global() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.32.0.1",
            "192.0.0.9",
            "192.0.0.10",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "2001:4860:4860::8888",
            "2001:1::1",
            "2001:3::1",
            "2001:20::1",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
        ] {
            assert!(global(address), "{address} refused although global");
        }
    }

    #[test]
    fn the_operator_can_open_networks() {
        let policy = AddressPolicy {
            allow_all: false,
            allowed_networks: vec!["127.0.0.2/32".parse().unwrap()],
        };
        assert!(policy.permits("127.0.0.2".parse().unwrap()));
        assert!(!policy.permits("127.0.0.1".parse().unwrap()));
        assert!(policy.permits("8.8.8.8".parse().unwrap()));
        let open = AddressPolicy {
            allow_all: true,
            allowed_networks: Vec::new(),
        };
        assert!(open.permits("127.0.0.1".parse().unwrap()));
    }
}
