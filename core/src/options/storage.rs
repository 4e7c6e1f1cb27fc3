//! `options_table!`: the option table (`keys.rs`) declared together with the storage its rows
//! write, so that an option is one row — its storage (a private field, its blank value and,
//! on [`ClientOptions`](super::ClientOptions)/[`McpOptions`](super::McpOptions), its typed
//! getter) is written in the row, beside its name, meaning, default, range and setter.

/// Declares the four structs the rows store into (the client options, their MCP part, the
/// builder's staging fields, the `oauth*` options) and the static table of rows. Each row is
/// its storage clauses, then `row` and its [`Entry`](super::keys::Entry):
/// - `client field: Type = blank => getter -> Read = |o| read[, "name"];` a field of the
///   client options with its getter (documented as option `field`, or `name`: a family such as
///   `"retry_…"`);
/// - `mcp field: Type = blank => getter -> Read = |o| read;` the same on the MCP options
///   (option `mcp_field`);
/// - `builder field: Type = blank;` and `oauth field: Type = blank;` a staging field;
/// - `set /// doc name(v: Type) = json;` the typed setter `ClientOptions::name(v)`, which sets
///   row `name` to `json` through the table (`by_table`: 0 and ranges as by name), and
///   `set_seconds /// doc name;` the one of a duration stored in field `name`
///   (`seconds_by_table`: kept exactly).
///
/// A blank value is the storage before the rows' resets run, never a default: the defaults are
/// the rows' resets (see `OptionsBuilder::new`).
macro_rules! options_table {
    (
        client {
            $(#[$cm:meta])*
            pub struct $cname:ident {
                $($hf:ident: $hty:ty = $hblank:expr
                    => $hget:ident -> $hread:ty = |$hs:ident| $hbody:expr, $hkey:literal;)*
            }
            private { $($cpf:ident: $cpty:ty = $cpblank:expr;)* }
        }
        mcp { $(#[$mm:meta])* pub struct $mname:ident; }
        builder {
            $(#[$bm:meta])*
            pub struct $bname:ident { $($(#[$bpa:meta])* $bpf:ident: $bpty:ty = $bpblank:expr;)* }
        }
        oauth {
            $(#[$om:meta])*
            pub(super) struct $oname:ident { $($(#[$opa:meta])* $opf:ident: $opty:ty = $opblank:expr;)* }
        }
        $(#[$km:meta])*
        $kvis:vis static $keys:ident: &[$entry:ty] = &[
            $(
                $(client $cf:ident: $cty:ty = $cblank:expr
                    => $cget:ident -> $cread:ty = |$cs:ident| $cbody:expr $(, $ckey:literal)?;)*
                $(mcp $mf:ident: $mty:ty = $mblank:expr
                    => $mget:ident -> $mread:ty = |$ms:ident| $mbody:expr;)*
                $(builder $(#[$ba:meta])* $bf:ident: $bty:ty = $bblank:expr;)*
                $(oauth $of:ident: $oty:ty = $oblank:expr;)*
                $(set $(#[$sa:meta])* $sn:ident($sv:ident: $st:ty) = $sj:expr;)*
                $(set_seconds $(#[$da:meta])* $dn:ident;)*
                row $row:expr,
            )*
        ];
    ) => {
        $(#[$cm])*
        pub struct $cname {
            $(pub(crate) $hf: $hty,)*
            $($(pub(crate) $cf: $cty,)*)*
            $(pub(super) $cpf: $cpty,)*
        }

        impl $cname {
            /// Storage before the table's rows reset it: not the defaults (see [`Default`]).
            pub(super) fn blank() -> Self {
                $cname {
                    $($hf: $hblank,)*
                    $($($cf: $cblank,)*)*
                    $($cpf: $cpblank,)*
                }
            }

            /// The rows the getters name, in order (`…`: a family of rows, `mcp_…`).
            #[cfg(test)]
            pub(super) const ROWS: &'static [&'static str] =
                &[$($hkey,)* $($(options_table!(@key [$($ckey)?] $cf),)*)*];

            /// The rows the typed setters a row declares set (`set`, `set_seconds`).
            #[cfg(test)]
            pub(super) const SETTERS: &'static [&'static str] =
                &[$($(stringify!($sn),)*)* $($(stringify!($dn),)*)*];

            $(
                #[doc = concat!("Option `", $hkey, "` as set (see [`keys`](crate::options::keys()) for its meaning and default).")]
                pub fn $hget(&self) -> $hread {
                    let $hs = self;
                    $hbody
                }
            )*
            $($(options_table!(@getter [$($ckey)?] $cf, $cget, $cread, |$cs| $cbody);)*)*

            $($(
                $(#[$sa])*
                pub fn $sn(self, $sv: $st) -> Self {
                    self.by_table(stringify!($sn), $sj)
                }
            )*)*
            $($(
                $(#[$da])*
                pub fn $dn(self, d: std::time::Duration) -> Self {
                    self.seconds_by_table(stringify!($dn), d, |o, d| o.$dn = d)
                }
            )*)*
        }

        $(#[$mm])*
        pub struct $mname {
            $($(pub(crate) $mf: $mty,)*)*
        }

        impl $mname {
            /// Storage before the table's rows reset it: not the defaults (see [`Default`]).
            pub(super) fn blank() -> Self {
                $mname { $($($mf: $mblank,)*)* }
            }

            /// The rows the getters name, in order.
            #[cfg(test)]
            pub(super) const ROWS: &'static [&'static str] =
                &[$($(concat!("mcp_", stringify!($mf)),)*)*];

            $($(
                #[doc = concat!("Option `mcp_", stringify!($mf), "` as set (see [`keys`](crate::options::keys()) for its meaning and default).")]
                pub fn $mget(&self) -> $mread {
                    let $ms = self;
                    $mbody
                }
            )*)*
        }

        $(#[$bm])*
        pub struct $bname {
            $($(#[$bpa])* pub(super) $bpf: $bpty,)*
            $($($(#[$ba])* pub(super) $bf: $bty,)*)*
        }

        impl $bname {
            /// Storage before the table's rows reset it (see `OptionsBuilder::new`).
            fn blank() -> Self {
                $bname {
                    $($bpf: $bpblank,)*
                    $($($(#[$ba])* $bf: $bblank,)*)*
                }
            }
        }

        $(#[$om])*
        pub(super) struct $oname {
            $($(#[$opa])* pub $opf: $opty,)*
            $($(pub $of: $oty,)*)*
        }

        impl $oname {
            /// Storage before the table's rows reset it.
            fn blank() -> Self {
                $oname {
                    $($(#[$opa])* $opf: $opblank,)*
                    $($($of: $oblank,)*)*
                }
            }
        }

        $(#[$km])*
        $kvis static $keys: &[$entry] = &[$($row,)*];
    };
    (@key [$key:literal] $f:ident) => { $key };
    (@key [] $f:ident) => { stringify!($f) };
    (@getter [$key:literal] $f:ident, $get:ident, $read:ty, |$s:ident| $body:expr) => {
        #[doc = concat!("Option `", $key, "` as set (see [`keys`](crate::options::keys()) for its meaning and default).")]
        pub fn $get(&self) -> $read {
            let $s = self;
            $body
        }
    };
    (@getter [] $f:ident, $get:ident, $read:ty, |$s:ident| $body:expr) => {
        #[doc = concat!("Option `", stringify!($f), "` as set (see [`keys`](crate::options::keys()) for its meaning and default).")]
        pub fn $get(&self) -> $read {
            let $s = self;
            $body
        }
    };
}
