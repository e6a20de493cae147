// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { TestToken } from "./TestToken.sol";

/// @notice ERC-1271 surface a contract signer (a smart account) exposes.
interface IERC1271Signer {
    function isValidSignature(
        bytes32 hash,
        bytes calldata signature
    ) external view returns (bytes4 magicValue);
}

/// @title TestUSDC
/// @notice A local USDC stand-in with the EIP-3009 surface x402's `exact` scheme calls: signed
///         `transferWithAuthorization` / `receiveWithAuthorization` / `cancelAuthorization` with both
///         `(v, r, s)` and `bytes signature` overloads, ERC-1271 contract signers, single-use random
///         nonces, and the revert strings of Circle's FiatTokenV2_2, so facilitators classify failures
///         exactly as on a real chain. LOCAL ONLY: never deploy to a real chain (anyone holding the
///         deployer key can mint).
/// @dev EIP-712 domain: name "USD Coin", version "2", the current chain id, this contract. The domain
///      separator is recomputed if the chain id changes (fork safety). Unlike FiatToken there is no
///      blacklist, pause or permit.
contract TestUSDC is TestToken {
    // keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;
    // keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;
    // keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = 0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429;

    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("USD Coin");
    bytes32 private constant VERSION_HASH = keccak256("2");
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    // secp256k1n / 2: higher s values are the malleable twin of a valid signature.
    uint256 private constant HALF_CURVE_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    mapping(address authorizer => mapping(bytes32 nonce => bool used)) private _authorizationStates;

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor() TestToken("USD Coin", "USDC", 6) {
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
    }

    /// @notice The EIP-712 domain version, "2" as on Circle's FiatTokenV2.
    function version() external pure returns (string memory) {
        return "2";
    }

    /// @notice The EIP-712 domain separator for ("USD Coin", "2", chain id, this contract).
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparator();
    }

    /// @notice Whether `nonce` of `authorizer` was used or canceled.
    function authorizationState(
        address authorizer,
        bytes32 nonce
    ) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice Moves `value` from `from` to `to` on `from`'s signed TransferWithAuthorization; anyone may submit.
    /// @dev Valid when `validAfter < now < validBefore`, the nonce is unused, and the signature is from
    ///      `from` (ECDSA, or ERC-1271 when `from` has code).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice Same as the `(v, r, s)` overload with a packed 65-byte ECDSA or any ERC-1271 signature.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Like `transferWithAuthorization`, but only the payee may submit it (no front-running).
    /// @dev Reverts "FiatTokenV2: caller must be the payee" unless `msg.sender == to`.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice Same as the `(v, r, s)` overload with a packed or ERC-1271 signature.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice Burns an unused nonce on the authorizer's signed CancelAuthorization; anyone may submit.
    function cancelAuthorization(
        address authorizer,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice Same as the `(v, r, s)` overload with a packed or ERC-1271 signature.
    function cancelAuthorization(
        address authorizer,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    function _transferWithAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        // forge-lint: disable-next-line(block-timestamp)
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        // forge-lint: disable-next-line(block-timestamp)
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _requireUnusedAuthorization(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        _requireValidSignature(from, structHash, signature);

        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(
        address authorizer,
        bytes32 nonce,
        bytes memory signature
    ) private {
        _requireUnusedAuthorization(authorizer, nonce);
        _requireValidSignature(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), signature);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _requireUnusedAuthorization(
        address authorizer,
        bytes32 nonce
    ) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    /// @dev FiatTokenV2_2 semantics: an address without code must have signed with ECDSA (and a malformed
    ///      ECDSA signature reverts with ECRecover's own message); an address with code is asked through ERC-1271.
    function _requireValidSignature(
        address signer,
        bytes32 structHash,
        bytes memory signature
    ) private view {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash));
        bool valid;
        if (signer.code.length == 0) {
            valid = _recover(digest, signature) == signer;
        } else {
            (bool ok, bytes memory ret) = signer.staticcall(abi.encodeCall(IERC1271Signer.isValidSignature, (digest, signature)));
            valid = ok && ret.length >= 32 && abi.decode(ret, (bytes32)) == bytes32(ERC1271_MAGIC_VALUE);
        }
        require(valid, "FiatTokenV2: invalid signature");
    }

    /// @dev Circle's ECRecover library: 65-byte signature, low s, v of 27 or 28, non-zero signer.
    function _recover(
        bytes32 digest,
        bytes memory signature
    ) private pure returns (address signer) {
        require(signature.length == 65, "ECRecover: invalid signature length");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        require(uint256(s) <= HALF_CURVE_ORDER, "ECRecover: invalid signature 's' value");
        require(v == 27 || v == 28, "ECRecover: invalid signature 'v' value");
        signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "ECRecover: invalid signature");
    }

    function _domainSeparator() private view returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(EIP712_DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }
}
