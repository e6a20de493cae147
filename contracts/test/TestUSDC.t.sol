// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "./lib/Test.sol";
import { TestUSDC } from "../src/test-assets/TestUSDC.sol";

/// A smart-account payer: accepts a signature when its owner key signed the digest.
contract USDCTestWallet {
    address public immutable owner;

    constructor(
        address owner_
    ) {
        owner = owner_;
    }

    function isValidSignature(
        bytes32 hash,
        bytes calldata signature
    ) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// A contract signer that answers with garbage, and one that reverts.
contract USDCTestBadWallet {
    bool public reverts;

    constructor(
        bool reverts_
    ) {
        reverts = reverts_;
    }

    function isValidSignature(
        bytes32,
        bytes calldata
    ) external view returns (bytes4) {
        require(!reverts, "nope");
        return bytes4(uint32(0x1626ba7e ^ 0xffffffff));
    }
}

contract TestUSDCTest is Test {
    TestUSDC internal usdc;
    uint256 internal constant PAYER_KEY = 0xA11CE;
    uint256 internal constant OTHER_KEY = 0xB0B;
    address internal payer;
    address internal constant PAYEE = address(0x9A1EE);
    address internal constant RELAYER = address(0xFAC1);
    bytes32 internal constant NONCE = keccak256("nonce-1");
    uint256 internal constant NOW = 1_700_000_000;

    // Signatures exactly as @x402/evm's eip3009ABI declares them.
    string internal constant TWA_VRS =
        "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)";
    string internal constant TWA_BYTES = "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)";

    event Transfer(address indexed from, address indexed to, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    function setUp() public {
        vm.warp(NOW);
        usdc = new TestUSDC();
        payer = vm.addr(PAYER_KEY);
        usdc.mint(payer, 1000e6);
    }

    // ---------------------------------------------------------------- signing helpers

    function _digest(
        bytes32 structHash
    ) internal view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash));
    }

    function _authHash(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 after_,
        uint256 before_,
        bytes32 nonce
    ) internal pure returns (bytes32) {
        return keccak256(abi.encode(typeHash, from, to, value, after_, before_, nonce));
    }

    function _signTransfer(
        uint256 key,
        address from,
        address to,
        uint256 value,
        uint256 after_,
        uint256 before_,
        bytes32 nonce
    ) internal view returns (uint8 v, bytes32 r, bytes32 s) {
        bytes32 h = _authHash(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), from, to, value, after_, before_, nonce);
        return vm.sign(key, _digest(h));
    }

    function _packed(
        uint8 v,
        bytes32 r,
        bytes32 s
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(r, s, v);
    }

    function _pay(
        uint256 value,
        bytes32 nonce
    ) internal {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, value, 0, NOW + 1 hours, nonce);
        usdc.transferWithAuthorization(payer, PAYEE, value, 0, NOW + 1 hours, nonce, v, r, s);
    }

    // ---------------------------------------------------------------- metadata / domain

    function test_metadata() public view {
        assertEq(keccak256(bytes(usdc.name())), keccak256("USD Coin"));
        assertEq(keccak256(bytes(usdc.symbol())), keccak256("USDC"));
        assertEq(uint256(usdc.decimals()), 6);
        assertEq(keccak256(bytes(usdc.version())), keccak256("2"));
    }

    function test_domainSeparator_isUsdCoinV2() public view {
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("USD Coin"),
                keccak256("2"),
                block.chainid,
                address(usdc)
            )
        );
        assertEq(usdc.DOMAIN_SEPARATOR(), expected);
    }

    function test_domainSeparator_followsChainId() public {
        bytes32 before_ = usdc.DOMAIN_SEPARATOR();
        vm.chainId(8453);
        bytes32 after_ = usdc.DOMAIN_SEPARATOR();
        assertTrue(before_ != after_, "separator must change with the chain");
        // A signature made for the new chain verifies there.
        _pay(1e6, NONCE);
        assertEq(usdc.balanceOf(PAYEE), 1e6);
    }

    function test_typehashes() public view {
        assertEq(
            usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(),
            keccak256(
                "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            )
        );
        assertEq(
            usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(),
            keccak256(
                "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
            )
        );
        assertEq(usdc.CANCEL_AUTHORIZATION_TYPEHASH(), keccak256("CancelAuthorization(address authorizer,bytes32 nonce)"));
    }

    // ---------------------------------------------------------------- transferWithAuthorization

    function test_transferWithAuthorization_vrs() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 5e6, 0, NOW + 60, NONCE);
        vm.expectEmit(true, true, true, true);
        emit AuthorizationUsed(payer, NONCE);
        vm.expectEmit(true, true, true, true);
        emit Transfer(payer, PAYEE, 5e6);
        vm.prank(RELAYER);
        usdc.transferWithAuthorization(payer, PAYEE, 5e6, 0, NOW + 60, NONCE, v, r, s);
        assertEq(usdc.balanceOf(PAYEE), 5e6);
        assertEq(usdc.balanceOf(payer), 995e6);
        assertTrue(usdc.authorizationState(payer, NONCE));
    }

    function test_transferWithAuthorization_bytesSignature() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 5e6, NOW - 1, NOW + 60, NONCE);
        usdc.transferWithAuthorization(payer, PAYEE, 5e6, NOW - 1, NOW + 60, NONCE, _packed(v, r, s));
        assertEq(usdc.balanceOf(PAYEE), 5e6);
    }

    // The exact calldata shapes @x402/evm sends (encodeFunctionData over its eip3009ABI).
    function test_x402AbiShapes() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        (bool ok,) = address(usdc).call(abi.encodeWithSignature(TWA_VRS, payer, PAYEE, 1e6, 0, NOW + 60, NONCE, v, r, s));
        assertTrue(ok, "v,r,s overload");
        bytes32 nonce2 = keccak256("nonce-2");
        (v, r, s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, nonce2);
        (ok,) = address(usdc).call(abi.encodeWithSignature(TWA_BYTES, payer, PAYEE, 1e6, 0, NOW + 60, nonce2, _packed(v, r, s)));
        assertTrue(ok, "bytes overload");
        bytes memory ret;
        (ok, ret) = address(usdc).staticcall(abi.encodeWithSignature("authorizationState(address,bytes32)", payer, nonce2));
        assertTrue(ok && abi.decode(ret, (bool)), "authorizationState");
        (ok, ret) = address(usdc).staticcall(abi.encodeWithSignature("version()"));
        assertEq(keccak256(bytes(abi.decode(ret, (string)))), keccak256("2"));
        (ok, ret) = address(usdc).staticcall(abi.encodeWithSignature("name()"));
        assertEq(keccak256(bytes(abi.decode(ret, (string)))), keccak256("USD Coin"));
        (ok, ret) = address(usdc).staticcall(abi.encodeWithSignature("balanceOf(address)", PAYEE));
        assertEq(abi.decode(ret, (uint256)), 2e6);
        // Selectors as published for FiatTokenV2.
        assertEq(bytes32(bytes4(keccak256(bytes(TWA_VRS)))), bytes32(bytes4(0xe3ee160e)));
        assertEq(bytes32(bytes4(keccak256(bytes(TWA_BYTES)))), bytes32(bytes4(0xcf092995)));
    }

    function test_revertsWhenNotYetValid() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, NOW, NOW + 60, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: authorization is not yet valid"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, NOW, NOW + 60, NONCE, v, r, s);
    }

    function test_revertsWhenExpired() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: authorization is expired"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW, NONCE, v, r, s);
    }

    function test_revertsOnReplay() public {
        _pay(1e6, NONCE);
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 1 hours, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 1 hours, NONCE, v, r, s);
    }

    function test_revertsOnWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(OTHER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, v, r, s);
    }

    function test_revertsOnTamperedValue() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        usdc.transferWithAuthorization(payer, PAYEE, 2e6, 0, NOW + 60, NONCE, v, r, s);
        assertFalse(usdc.authorizationState(payer, NONCE), "a failed attempt must not burn the nonce");
    }

    function test_revertsOnInsufficientBalance() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1001e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("ERC20: transfer amount exceeds balance"));
        usdc.transferWithAuthorization(payer, PAYEE, 1001e6, 0, NOW + 60, NONCE, v, r, s);
    }

    function test_revertsOnBadSignatureLength() public {
        vm.expectRevert(bytes("ECRecover: invalid signature length"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, new bytes(64));
    }

    function test_revertsOnHighS() public {
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        // The malleable twin (n - s, flipped v) recovers the same signer but must be refused.
        uint256 n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;
        vm.expectRevert(bytes("ECRecover: invalid signature 's' value"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, v == 27 ? 28 : 27, r, bytes32(n - uint256(s)));
    }

    function test_revertsOnBadV() public {
        (, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("ECRecover: invalid signature 'v' value"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, 1, r, s);
    }

    function test_revertsWhenNothingRecovers() public {
        vm.expectRevert(bytes("ECRecover: invalid signature"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, 27, bytes32(0), bytes32(uint256(1)));
    }

    function testFuzz_transferWithAuthorization(
        uint256 value,
        bytes32 nonce,
        uint32 window,
        address to
    ) public {
        vm.assume(to != address(0) && to != payer);
        value = bound(value, 0, 1000e6);
        uint256 before_ = NOW + bound(window, 1, type(uint32).max);
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, to, value, 0, before_, nonce);
        usdc.transferWithAuthorization(payer, to, value, 0, before_, nonce, _packed(v, r, s));
        assertEq(usdc.balanceOf(to), value);
        assertTrue(usdc.authorizationState(payer, nonce));
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        usdc.transferWithAuthorization(payer, to, value, 0, before_, nonce, _packed(v, r, s));
    }

    // ---------------------------------------------------------------- receiveWithAuthorization

    function _signReceive(
        uint256 value,
        bytes32 nonce
    ) internal view returns (uint8, bytes32, bytes32) {
        bytes32 h = _authHash(usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(), payer, PAYEE, value, 0, NOW + 60, nonce);
        return vm.sign(PAYER_KEY, _digest(h));
    }

    function test_receiveWithAuthorization_byPayee() public {
        (uint8 v, bytes32 r, bytes32 s) = _signReceive(3e6, NONCE);
        vm.prank(PAYEE);
        usdc.receiveWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, NONCE, v, r, s);
        assertEq(usdc.balanceOf(PAYEE), 3e6);

        bytes32 nonce2 = keccak256("n2");
        (v, r, s) = _signReceive(3e6, nonce2);
        vm.prank(PAYEE);
        usdc.receiveWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, nonce2, _packed(v, r, s));
        assertEq(usdc.balanceOf(PAYEE), 6e6);
    }

    function test_receiveWithAuthorization_revertsForOtherCaller() public {
        (uint8 v, bytes32 r, bytes32 s) = _signReceive(3e6, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: caller must be the payee"));
        vm.prank(RELAYER);
        usdc.receiveWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, NONCE, v, r, s);
        vm.expectRevert(bytes("FiatTokenV2: caller must be the payee"));
        vm.prank(RELAYER);
        usdc.receiveWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, NONCE, _packed(v, r, s));
    }

    function test_typesAreNotInterchangeable() public {
        // A TransferWithAuthorization signature is not a ReceiveWithAuthorization one, and vice versa.
        (uint8 v, bytes32 r, bytes32 s) = _signTransfer(PAYER_KEY, payer, PAYEE, 3e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        vm.prank(PAYEE);
        usdc.receiveWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, NONCE, v, r, s);
        (v, r, s) = _signReceive(3e6, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        usdc.transferWithAuthorization(payer, PAYEE, 3e6, 0, NOW + 60, NONCE, v, r, s);
    }

    // ---------------------------------------------------------------- cancelAuthorization

    function _signCancel(
        uint256 key,
        bytes32 nonce
    ) internal view returns (uint8, bytes32, bytes32) {
        return vm.sign(key, _digest(keccak256(abi.encode(usdc.CANCEL_AUTHORIZATION_TYPEHASH(), payer, nonce))));
    }

    function test_cancelAuthorization_burnsTheNonce() public {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(PAYER_KEY, NONCE);
        vm.expectEmit(true, true, true, true);
        emit AuthorizationCanceled(payer, NONCE);
        vm.prank(RELAYER);
        usdc.cancelAuthorization(payer, NONCE, v, r, s);
        assertTrue(usdc.authorizationState(payer, NONCE));

        (v, r, s) = _signTransfer(PAYER_KEY, payer, PAYEE, 1e6, 0, NOW + 60, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        usdc.transferWithAuthorization(payer, PAYEE, 1e6, 0, NOW + 60, NONCE, v, r, s);
    }

    function test_cancelAuthorization_bytesOverload() public {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(PAYER_KEY, NONCE);
        usdc.cancelAuthorization(payer, NONCE, _packed(v, r, s));
        assertTrue(usdc.authorizationState(payer, NONCE));
    }

    function test_cancelAuthorization_revertsWhenUsed() public {
        _pay(1e6, NONCE);
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(PAYER_KEY, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        usdc.cancelAuthorization(payer, NONCE, v, r, s);
    }

    function test_cancelAuthorization_revertsOnWrongSigner() public {
        (uint8 v, bytes32 r, bytes32 s) = _signCancel(OTHER_KEY, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        usdc.cancelAuthorization(payer, NONCE, v, r, s);
    }

    // ---------------------------------------------------------------- ERC-1271 payers

    function _walletPays(
        address wallet,
        uint256 key,
        bytes32 nonce
    ) internal {
        bytes32 h = _authHash(usdc.TRANSFER_WITH_AUTHORIZATION_TYPEHASH(), wallet, PAYEE, 2e6, 0, NOW + 60, nonce);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _digest(h));
        usdc.transferWithAuthorization(wallet, PAYEE, 2e6, 0, NOW + 60, nonce, _packed(v, r, s));
    }

    function test_erc1271_walletPays() public {
        USDCTestWallet wallet = new USDCTestWallet(vm.addr(OTHER_KEY));
        usdc.mint(address(wallet), 10e6);
        _walletPays(address(wallet), OTHER_KEY, NONCE);
        assertEq(usdc.balanceOf(PAYEE), 2e6);
        assertTrue(usdc.authorizationState(address(wallet), NONCE));
    }

    function test_erc1271_rejectsWrongOwnerSignature() public {
        USDCTestWallet wallet = new USDCTestWallet(vm.addr(OTHER_KEY));
        usdc.mint(address(wallet), 10e6);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        this.walletPaysExternal(address(wallet), PAYER_KEY, NONCE);
    }

    function test_erc1271_rejectsBadMagicAndReverts() public {
        USDCTestBadWallet liar = new USDCTestBadWallet(false);
        USDCTestBadWallet reverter = new USDCTestBadWallet(true);
        usdc.mint(address(liar), 10e6);
        usdc.mint(address(reverter), 10e6);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        this.walletPaysExternal(address(liar), PAYER_KEY, NONCE);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        this.walletPaysExternal(address(reverter), PAYER_KEY, NONCE);
    }

    function test_erc1271_nonStandardSignatureLengthIsPassedThrough() public {
        // Contract signers get the raw bytes: no 65-byte rule (the wallet decides).
        USDCTestWallet wallet = new USDCTestWallet(vm.addr(OTHER_KEY));
        usdc.mint(address(wallet), 10e6);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        usdc.transferWithAuthorization(address(wallet), PAYEE, 2e6, 0, NOW + 60, NONCE, new bytes(100));
    }

    function walletPaysExternal(
        address wallet,
        uint256 key,
        bytes32 nonce
    ) external {
        _walletPays(wallet, key, nonce);
    }

    // ---------------------------------------------------------------- plain ERC-20 inherited

    function test_plainTransferStillWorks() public {
        vm.prank(payer);
        assertTrue(usdc.transfer(PAYEE, 7e6));
        assertEq(usdc.balanceOf(PAYEE), 7e6);
    }
}
