// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { Test } from "../lib/Test.sol";
import { Execution } from "../../src/libraries/ExecutionLib.sol";
import { TokenFeed } from "../../src/libraries/UsdValuation.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";
import { MockPriceFeed } from "../../src/test-assets/MockPriceFeed.sol";

/// Fixture for the USD-valuing enforcer suites: three tokens and ETH with Chainlink-style feeds, and the
/// encodings the DelegationManager hands to caveat hooks (msg.sender = the manager; single =
/// encodePacked(target, value, callData); batch = encode(Execution[])).
abstract contract PricedAssetsTest is Test {
    address internal constant MANAGER = address(0xDE1E);
    address internal constant OTHER_MANAGER = address(0xDE2E);
    address internal constant DELEGATOR = address(0xA11CE);
    address internal constant REDEEMER = address(0xB0B);
    address internal constant PAYEE = address(0xCAFE);
    bytes32 internal constant HASH = keccak256("delegation");
    bytes32 internal constant OTHER_HASH = keccak256("other delegation");

    bytes32 internal constant SINGLE = bytes32(0);
    bytes32 internal constant BATCH = bytes32(bytes1(0x01));
    bytes32 internal constant SINGLE_TRY = bytes32(bytes2(0x0001));
    bytes32 internal constant BATCH_TRY = bytes32(bytes2(0x0101));
    bytes32 internal constant DELEGATECALL = bytes32(bytes1(0xff));

    uint32 internal constant MAX_AGE = 3600;
    uint256 internal constant T0 = 1_700_000_000; // a Tuesday, 22:13:20 UTC

    TestToken internal usdc; // 6 decimals, $1 on an 8-decimal feed
    TestToken internal weth; // 18 decimals, $3000 on an 8-decimal feed
    TestToken internal dai; // 18 decimals, $1 on an 18-decimal feed
    TestToken internal unlisted;
    MockPriceFeed internal ethFeed;
    MockPriceFeed internal usdcFeed;
    MockPriceFeed internal wethFeed;
    MockPriceFeed internal daiFeed;

    function setUpAssets() internal {
        vm.warp(T0);
        usdc = new TestToken("USD Coin", "USDC", 6);
        weth = new TestToken("Wrapped Ether", "WETH", 18);
        dai = new TestToken("Dai", "DAI", 18);
        unlisted = new TestToken("Unlisted", "UNL", 18);
        ethFeed = new MockPriceFeed(8, 3000e8, "ETH / USD");
        usdcFeed = new MockPriceFeed(8, 1e8, "USDC / USD");
        wethFeed = new MockPriceFeed(8, 3000e8, "WETH / USD");
        daiFeed = new MockPriceFeed(18, 1e18, "DAI / USD");
    }

    /// ETH, USDC, WETH, DAI in that order.
    function allFeeds() internal view returns (TokenFeed[] memory feeds) {
        feeds = new TokenFeed[](4);
        feeds[0] = TokenFeed(address(0), 18, address(ethFeed));
        feeds[1] = TokenFeed(address(usdc), 6, address(usdcFeed));
        feeds[2] = TokenFeed(address(weth), 18, address(wethFeed));
        feeds[3] = TokenFeed(address(dai), 18, address(daiFeed));
    }

    function tokenFeedsOnly() internal view returns (TokenFeed[] memory feeds) {
        feeds = new TokenFeed[](3);
        feeds[0] = TokenFeed(address(usdc), 6, address(usdcFeed));
        feeds[1] = TokenFeed(address(weth), 18, address(wethFeed));
        feeds[2] = TokenFeed(address(dai), 18, address(daiFeed));
    }

    function single(
        address target,
        uint256 value,
        bytes memory callData
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(target, value, callData);
    }

    function batch(
        Execution[] memory executions
    ) internal pure returns (bytes memory) {
        return abi.encode(executions);
    }

    function execs(
        Execution memory a
    ) internal pure returns (Execution[] memory e) {
        e = new Execution[](1);
        e[0] = a;
    }

    function execs(
        Execution memory a,
        Execution memory b
    ) internal pure returns (Execution[] memory e) {
        e = new Execution[](2);
        e[0] = a;
        e[1] = b;
    }

    function execs(
        Execution memory a,
        Execution memory b,
        Execution memory c
    ) internal pure returns (Execution[] memory e) {
        e = new Execution[](3);
        e[0] = a;
        e[1] = b;
        e[2] = c;
    }

    function transferCall(
        uint256 amount
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(0xa9059cbb, PAYEE, amount);
    }

    function transferFromCall(
        uint256 amount
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(0x23b872dd, DELEGATOR, PAYEE, amount);
    }

    function approveCall(
        uint256 amount
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(0x095ea7b3, PAYEE, amount);
    }

    /// Reference valuation, written independently of the library: ceil(amount * answer * 1e6 / 10**(td+fd)).
    /// Callers keep the inputs small enough that the product fits in 256 bits.
    function refUsd(
        uint256 amount,
        uint256 answer,
        uint256 tokenDecimals,
        uint256 feedDecimals
    ) internal pure returns (uint256) {
        uint256 num = amount * answer * 1e6;
        uint256 den = 10 ** tokenDecimals * 10 ** feedDecimals;
        return num / den + (num % den == 0 ? 0 : 1);
    }
}
