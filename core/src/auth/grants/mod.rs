//! Grants beyond the browser: client credentials (`client_secret_basic`/`_post`,
//! `private_key_jwt`), the JWT bearer grant (workload identity federation, and the second
//! step of enterprise-managed authorization), and the RFC 8693 token exchange that makes an
//! ID-JAG from an enterprise IdP's ID token; the JOSE pieces they and DPoP share.

pub mod flows;
pub mod form;
pub mod jose;
mod signer;
#[cfg(test)]
mod tests;

pub use flows::{AssertionSource, ClientCredentials, EnterpriseManaged, JwtBearer};
pub use signer::PrivateKeyJwt;
