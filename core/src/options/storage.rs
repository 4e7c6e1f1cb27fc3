//! `storage!`: an options struct declared with one line per option's storage — the private
//! field, its blank value and its typed getter — so that an option is its row in the table
//! (`keys.rs`: name, meaning, default, range, setter) and one line here.

/// Declares an options struct: `field: Type = blank => getter -> Read = |o| read, "row";` per
/// option makes the private field, its blank value (storage before the rows' resets, never a
/// default) and its getter, documented by the row's name. Fields of the struct alone follow
/// in `private { … }`.
macro_rules! storage {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($field:ident: $ty:ty = $blank:expr
                => $get:ident -> $read:ty = |$s:ident| $body:expr, $key:literal;)*
        }
        $(private { $($pf:ident: $pty:ty = $pblank:expr;)* })?
    ) => {
        $(#[$meta])*
        pub struct $name {
            $(pub(crate) $field: $ty,)*
            $($($pf: $pty,)*)?
        }

        impl $name {
            /// Storage before the table's rows reset it: not the defaults (see [`Default`]).
            pub(super) fn blank() -> Self {
                $name {
                    $($field: $blank,)*
                    $($($pf: $pblank,)*)?
                }
            }

            /// The rows the getters name, in order (`…`: a family of rows, `mcp_…`).
            #[cfg(test)]
            pub(super) const ROWS: &'static [&'static str] = &[$($key),*];

            $(
                #[doc = concat!("Option `", $key, "` as set (see [`keys`](crate::options::keys()) for its meaning and default).")]
                pub fn $get(&self) -> $read {
                    let $s = self;
                    $body
                }
            )*
        }
    };
}
