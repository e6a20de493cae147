// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { V1ExactInputSingleParams, V1ExactInputParams } from "./helpers/SwapRouterV1.sol";
import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../src/libraries/UsdValuation.sol";
import { MaxSlippageEnforcer } from "../src/enforcers/MaxSlippageEnforcer.sol";
import { TestSwapRouter } from "../src/test-assets/TestSwapRouter.sol";

contract MaxSlippageEnforcerTest is PricedAssetsTest {
    MaxSlippageEnforcer enforcer;
    uint16 constant MAX_BPS = 50; // 0.5 %
    bytes terms;
    address constant ROUTER = address(0x5e7e);

    function setUp() public {
        setUpAssets();
        enforcer = new MaxSlippageEnforcer();
        terms = abi.encode(MAX_BPS, MAX_AGE, tokenFeedsOnly());
    }

    // ------------------------------------------------------------------ encoders

    function _single02(
        address tIn,
        address tOut,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            TestSwapRouter.exactInputSingle.selector,
            TestSwapRouter.ExactInputSingleParams(tIn, tOut, 500, DELEGATOR, amountIn, minOut, 0)
        );
    }

    function _path(
        address a,
        address b,
        address c
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(a, uint24(500), b, uint24(3000), c);
    }

    function _input02(
        bytes memory path,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            TestSwapRouter.exactInput.selector, TestSwapRouter.ExactInputParams(path, DELEGATOR, amountIn, minOut)
        );
    }

    function _singleV1(
        address tIn,
        address tOut,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            bytes4(0x414bf389), V1ExactInputSingleParams(tIn, tOut, 3000, DELEGATOR, 1e10, amountIn, minOut, 0)
        );
    }

    function _inputV1(
        bytes memory path,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(bytes4(0xc04b8d59), V1ExactInputParams(path, DELEGATOR, 1e10, amountIn, minOut));
    }

    function _v2(
        address[] memory path,
        uint256 amountIn,
        uint256 minOut
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(bytes4(0x38ed1739), amountIn, minOut, path, DELEGATOR, uint256(1e10));
    }

    function _addrs(
        address a,
        address b,
        address c
    ) internal pure returns (address[] memory p) {
        p = new address[](3);
        (p[0], p[1], p[2]) = (a, b, c);
    }

    function _hook(
        bytes memory t,
        bytes32 mode,
        bytes memory execution
    ) internal view {
        enforcer.beforeHook(t, "", mode, execution, HASH, DELEGATOR, REDEEMER);
    }

    function _swap(
        bytes memory callData
    ) internal view {
        _hook(terms, SINGLE, single(ROUTER, 0, callData));
    }

    function _exceeded(
        uint256 expected,
        uint256 minOut,
        uint256 bps
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(MaxSlippageEnforcer.SlippageExceeded.selector, expected, minOut, bps, MAX_BPS);
    }

    // ------------------------------------------------------------------ selectors

    function test_selectorsAreTheRealOnes() public pure {
        assertEq(
            bytes32(bytes4(keccak256("exactInputSingle((address,address,uint24,address,uint256,uint256,uint160))"))),
            bytes32(bytes4(0x04e45aaf))
        );
        assertEq(bytes32(bytes4(keccak256("exactInput((bytes,address,uint256,uint256))"))), bytes32(bytes4(0xb858183f)));
        assertEq(
            bytes32(bytes4(keccak256("exactInputSingle((address,address,uint24,address,uint256,uint256,uint256,uint160))"))),
            bytes32(bytes4(0x414bf389))
        );
        assertEq(bytes32(bytes4(keccak256("exactInput((bytes,address,uint256,uint256,uint256))"))), bytes32(bytes4(0xc04b8d59)));
        assertEq(
            bytes32(bytes4(keccak256("swapExactTokensForTokens(uint256,uint256,address[],address,uint256)"))),
            bytes32(bytes4(0x38ed1739))
        );
        assertEq(bytes32(TestSwapRouter.exactInputSingle.selector), bytes32(bytes4(0x04e45aaf)));
        assertEq(bytes32(TestSwapRouter.exactInput.selector), bytes32(bytes4(0xb858183f)));
    }

    // ------------------------------------------------------------------ each decoded function, at the boundary
    // 3000 USDC -> WETH at $1 / $3000: expected exactly 1e18. 51 bps below is refused, 50.99.. bps (floored
    // to 50) passes.

    uint256 constant IN = 3000e6;
    uint256 constant EXPECTED = 1e18;
    uint256 constant AT_51 = 0.9949e18;

    function test_exactInputSingle02() public {
        _swap(_single02(address(usdc), address(weth), IN, EXPECTED));
        _swap(_single02(address(usdc), address(weth), IN, 0.995e18)); // exactly 50 bps
        _swap(_single02(address(usdc), address(weth), IN, AT_51 + 1));
        vm.expectRevert(_exceeded(EXPECTED, AT_51, 51));
        _swap(_single02(address(usdc), address(weth), IN, AT_51));
    }

    function test_exactInputSingleV1() public {
        _swap(_singleV1(address(usdc), address(weth), IN, AT_51 + 1));
        vm.expectRevert(_exceeded(EXPECTED, AT_51, 51));
        _swap(_singleV1(address(usdc), address(weth), IN, AT_51));
    }

    function test_exactInput02_singleHop() public {
        bytes memory path = abi.encodePacked(address(usdc), uint24(500), address(weth));
        _swap(_input02(path, IN, AT_51 + 1));
        vm.expectRevert(_exceeded(EXPECTED, AT_51, 51));
        _swap(_input02(path, IN, AT_51));
    }

    function test_exactInput02_multiHopUsesFirstAndLastToken() public {
        // USDC -> WETH -> DAI: 3000 USDC should give 3000 DAI (18-decimal feed)
        bytes memory path = _path(address(usdc), address(weth), address(dai));
        _swap(_input02(path, IN, 2985e18)); // 50 bps
        vm.expectRevert(_exceeded(3000e18, 2984.7e18, 51));
        _swap(_input02(path, IN, 2984.7e18));
    }

    function test_exactInput_intermediateTokenNeedsNoFeed() public view {
        bytes memory path = _path(address(usdc), address(unlisted), address(dai));
        _swap(_input02(path, IN, 2985e18));
    }

    function test_exactInputV1_multiHop() public {
        bytes memory path = _path(address(dai), address(weth), address(usdc));
        _swap(_inputV1(path, 1000e18, 995e6));
        vm.expectRevert(_exceeded(1000e6, 994.9e6, 51));
        _swap(_inputV1(path, 1000e18, 994.9e6));
    }

    function test_swapExactTokensForTokensV2() public {
        address[] memory path = _addrs(address(weth), address(dai), address(usdc));
        _swap(_v2(path, 2e18, 5970e6)); // 50 bps under 6000 USDC
        vm.expectRevert(_exceeded(6000e6, 5969.4e6, 51));
        _swap(_v2(path, 2e18, 5969.4e6));
    }

    function test_minOutAboveExpectedIsZeroSlippage() public view {
        (uint256 e, uint256 m, uint256 bps) = enforcer.quote(terms, _single02(address(usdc), address(weth), IN, 2e18));
        assertEq(e, EXPECTED);
        assertEq(m, 2e18);
        assertEq(bps, 0);
    }

    function test_zeroExpectedOutput() public view {
        // nothing in, nothing expected: any minOut is 0 slippage (no division by zero)
        (uint256 e,, uint256 bps) = enforcer.quote(terms, _single02(address(usdc), address(weth), 0, 0));
        assertEq(e, 0);
        assertEq(bps, 0);
    }

    function test_zeroMinOutIsFullSlippage() public {
        vm.expectRevert(_exceeded(EXPECTED, 0, 10_000));
        _swap(_single02(address(usdc), address(weth), IN, 0));
    }

    function test_maxBps10000AllowsAnything() public view {
        bytes memory t = abi.encode(uint16(10_000), MAX_AGE, tokenFeedsOnly());
        _hook(t, SINGLE, single(ROUTER, 0, _single02(address(usdc), address(weth), IN, 0)));
    }

    // ------------------------------------------------------------------ batches and other calls

    function test_batchChecksEverySwap() public {
        Execution[] memory e = execs(
            Execution(address(usdc), 0, approveCall(IN)),
            Execution(ROUTER, 0, _single02(address(usdc), address(weth), IN, EXPECTED)),
            Execution(ROUTER, 0, _v2(_addrs(address(weth), address(usdc), address(dai)), 1e18, 2000e18))
        );
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.SlippageExceeded.selector, 3000e18, 2000e18, 3333, MAX_BPS));
        _hook(terms, BATCH, batch(e));
        e[2] = Execution(ROUTER, 0, _v2(_addrs(address(weth), address(usdc), address(dai)), 1e18, 2999e18));
        _hook(terms, BATCH, batch(e));
    }

    function test_otherCallsPass() public view {
        _swap(transferCall(1e30));
        _swap("");
        _swap(hex"04e45a"); // 3 bytes: no selector
        // exactOutputSingle is not decoded: this caveat governs exact-input swaps only
        _swap(abi.encodeWithSelector(bytes4(0x5023b4df), address(usdc), address(weth), uint24(500), DELEGATOR, 1, 2, 0));
    }

    function test_tryModeAllowed() public view {
        _hook(terms, SINGLE_TRY, single(ROUTER, 0, _single02(address(usdc), address(weth), IN, EXPECTED)));
    }

    function test_rejectsDelegatecall() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(terms, DELEGATECALL, single(ROUTER, 0, ""));
    }

    // ------------------------------------------------------------------ prices

    function test_unlistedTokenIn() public {
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(unlisted)));
        _swap(_single02(address(unlisted), address(weth), 1, 0));
    }

    function test_unlistedTokenOut() public {
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(unlisted)));
        _swap(_input02(_path(address(usdc), address(weth), address(unlisted)), 1, 0));
    }

    function test_stalePrice() public {
        wethFeed.setRoundData(3000e8, T0 - MAX_AGE - 1);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(wethFeed), T0 - MAX_AGE - 1, MAX_AGE));
        _swap(_single02(address(usdc), address(weth), IN, EXPECTED));
    }

    function test_nonPositivePrice() public {
        usdcFeed.setAnswer(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(usdcFeed), int256(0)));
        _swap(_single02(address(usdc), address(weth), IN, EXPECTED));
    }

    function test_priceMoveChangesTheQuote() public {
        wethFeed.setAnswer(1500e8); // WETH halves: the same minOut is now 50 % under
        vm.expectRevert(_exceeded(2e18, EXPECTED, 5000));
        _swap(_single02(address(usdc), address(weth), IN, EXPECTED));
    }

    function test_absurdDecimalsRevertRatherThanMisquote() public {
        TokenFeed[] memory f = tokenFeedsOnly();
        f[1].decimals = 200; // WETH "with 200 decimals": 10**(200+8-6-8) does not fit
        bytes memory t = abi.encode(MAX_BPS, MAX_AGE, f);
        vm.expectRevert(abi.encodeWithSignature("Panic(uint256)", uint256(0x11)));
        _hook(t, SINGLE, single(ROUTER, 0, _single02(address(usdc), address(weth), IN, EXPECTED)));
    }

    // ------------------------------------------------------------------ malformed calldata

    function _expectMalformed(
        bytes4 sel
    ) internal {
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.MalformedSwap.selector, sel));
    }

    function _cut(
        bytes memory b,
        uint256 n
    ) internal pure returns (bytes memory r) {
        r = new bytes(b.length - n);
        for (uint256 i; i < r.length; ++i) {
            r[i] = b[i];
        }
    }

    function _setWord(
        bytes memory b,
        uint256 offset,
        uint256 value
    ) internal pure returns (bytes memory) {
        assembly {
            mstore(add(add(b, 32), offset), value)
        }
        return b;
    }

    function test_malformed_single() public {
        bytes memory cd = _single02(address(usdc), address(weth), IN, EXPECTED);
        _expectMalformed(0x04e45aaf);
        _swap(_cut(cd, 1));
        _expectMalformed(0x414bf389);
        _swap(_cut(_singleV1(address(usdc), address(weth), IN, EXPECTED), 32));
        _expectMalformed(0x04e45aaf);
        _swap(_setWord(cd, 4, uint256(uint160(address(usdc))) | (1 << 200))); // dirty tokenIn word
    }

    function test_malformed_exactInput() public {
        bytes memory path = _path(address(usdc), address(weth), address(dai));
        bytes memory cd = _input02(path, IN, 2985e18);
        _expectMalformed(0xb858183f);
        _swap(hex"b858183f0000"); // shorter than the offset word
        _expectMalformed(0xb858183f);
        _swap(_setWord(bytes.concat(cd), 4, type(uint256).max)); // tuple offset out of range
        _expectMalformed(0xb858183f);
        _swap(_setWord(bytes.concat(cd), 4, cd.length - 4 - 64)); // tuple runs past the end
        _expectMalformed(0xb858183f);
        _swap(_setWord(bytes.concat(cd), 36, type(uint256).max - 3)); // path offset out of range
        _expectMalformed(0xb858183f);
        _swap(_setWord(bytes.concat(cd), 36 + 128, 112)); // path length (20 + 23k) past the end
        _expectMalformed(0xb858183f);
        _swap(_input02(abi.encodePacked(address(usdc), uint24(500)), IN, 1)); // 23 bytes
        _expectMalformed(0xb858183f);
        _swap(_input02(abi.encodePacked(path, uint8(0)), IN, 1)); // 67 bytes: not 20 + 23k
        _expectMalformed(0xc04b8d59);
        _swap(_cut(_inputV1(path, IN, 1), 96)); // path bytes cut off
    }

    function test_malformed_v2() public {
        address[] memory one = new address[](1);
        one[0] = address(usdc);
        _expectMalformed(0x38ed1739);
        _swap(_v2(one, 1, 1));
        bytes memory cd = _v2(_addrs(address(weth), address(dai), address(usdc)), 1, 1);
        _expectMalformed(0x38ed1739);
        _swap(_cut(cd, 32)); // last path element missing
        _expectMalformed(0x38ed1739);
        _swap(_setWord(bytes.concat(cd), 68, type(uint256).max)); // path offset
        _expectMalformed(0x38ed1739);
        _swap(_setWord(bytes.concat(cd), 164, type(uint256).max / 16)); // count
        _expectMalformed(0x38ed1739);
        _swap(_cut(cd, cd.length - 100)); // head cut
        _expectMalformed(0x38ed1739);
        _swap(_setWord(bytes.concat(cd), 164 + 96, uint256(uint160(address(usdc))) | (1 << 255))); // dirty last
    }

    // ------------------------------------------------------------------ quote and terms

    function test_quote() public view {
        (uint256 e, uint256 m, uint256 bps) = enforcer.quote(terms, _single02(address(usdc), address(weth), IN, 0.99e18));
        assertEq(e, EXPECTED);
        assertEq(m, 0.99e18);
        assertEq(bps, 100);
        (e, m, bps) = enforcer.quote(terms, _v2(_addrs(address(weth), address(dai), address(usdc)), 1e18, 2999e6));
        assertEq(e, 3000e6);
        assertEq(bps, 3);
    }

    function test_quote_notASwap() public {
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.MalformedSwap.selector, bytes4(0xa9059cbb)));
        enforcer.quote(terms, transferCall(1));
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.MalformedSwap.selector, bytes4(0)));
        enforcer.quote(terms, "");
    }

    function test_getTermsInfo() public view {
        (uint16 bps, uint32 age, TokenFeed[] memory f) = enforcer.getTermsInfo(terms);
        assertEq(uint256(bps), MAX_BPS);
        assertEq(uint256(age), MAX_AGE);
        assertEq(f.length, 3);
    }

    function test_invalidTerms() public {
        bytes memory t = abi.encode(uint16(10_001), MAX_AGE, tokenFeedsOnly());
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.InvalidSlippageBps.selector, uint16(10_001)));
        enforcer.getTermsInfo(t);
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.InvalidSlippageBps.selector, uint16(10_001)));
        _hook(t, SINGLE, single(ROUTER, 0, ""));
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, uint256(32)));
        enforcer.getTermsInfo(abi.encode(MAX_BPS));
        TokenFeed[] memory f = tokenFeedsOnly();
        f[0].feed = address(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 0, address(usdc), uint8(6), address(0)));
        enforcer.getTermsInfo(abi.encode(MAX_BPS, MAX_AGE, f));
    }

    // ------------------------------------------------------------------ against the router

    function test_routerOutputAtItsFeeIsWithinFeeBps() public {
        TestSwapRouter router = new TestSwapRouter();
        router.setFeed(address(usdc), address(usdcFeed));
        router.setFeed(address(weth), address(wethFeed));
        uint256 out = router.quoteHop(address(usdc), address(weth), 3000, IN); // 0.3 % fee
        bytes memory t = abi.encode(uint16(30), MAX_AGE, tokenFeedsOnly());
        (,, uint256 bps) = enforcer.quote(t, _single02(address(usdc), address(weth), IN, out));
        assertEq(bps, 30);
        _hook(t, SINGLE, single(address(router), 0, _single02(address(usdc), address(weth), IN, out)));
    }

    // ------------------------------------------------------------------ fuzz

    function testFuzz_slippageMatchesReference(
        uint256 amountIn,
        uint256 minOut,
        uint256 pIn,
        uint256 pOut,
        uint16 maxBps
    ) public {
        amountIn = bound(amountIn, 0, 1e30);
        pIn = bound(pIn, 1, 1e20);
        pOut = bound(pOut, 1, 1e20);
        maxBps = uint16(bound(maxBps, 0, 10_000));
        daiFeed.setAnswer(int256(pIn)); // DAI: 18 decimals, 18-decimal feed
        usdcFeed.setAnswer(int256(pOut)); // USDC: 6 decimals, 8-decimal feed
        // expected = amountIn * pIn * 10**(6+8) / (pOut * 10**(18+18))
        uint256 expected = (amountIn * pIn) / (pOut * 1e22);
        minOut = bound(minOut, 0, expected + 10);
        uint256 refBps = minOut >= expected ? 0 : (expected - minOut) * 10_000 / expected;
        bytes memory t = abi.encode(maxBps, MAX_AGE, tokenFeedsOnly());
        bytes memory cd = _single02(address(dai), address(usdc), amountIn, minOut);
        (uint256 e,, uint256 bps) = enforcer.quote(t, cd);
        assertEq(e, expected, "expected");
        assertEq(bps, refBps, "bps");
        if (refBps > maxBps) {
            vm.expectRevert(
                abi.encodeWithSelector(MaxSlippageEnforcer.SlippageExceeded.selector, expected, minOut, refBps, maxBps)
            );
        }
        _hook(t, SINGLE, single(ROUTER, 0, cd));
    }

    function testFuzz_decodersAgree(
        uint256 amountIn,
        uint256 minOut
    ) public view {
        amountIn = bound(amountIn, 0, 1e40);
        minOut = bound(minOut, 0, 1e40);
        bytes memory path = _path(address(weth), address(dai), address(usdc));
        bytes[5] memory calls = [
            _single02(address(weth), address(usdc), amountIn, minOut),
            _singleV1(address(weth), address(usdc), amountIn, minOut),
            _input02(path, amountIn, minOut),
            _inputV1(path, amountIn, minOut),
            _v2(_addrs(address(weth), address(dai), address(usdc)), amountIn, minOut)
        ];
        uint256 expected = amountIn * 3000 / 1e12; // WETH at $3000 into 6-decimal USDC at $1
        uint256 refBps = minOut >= expected ? 0 : (expected - minOut) * 10_000 / expected;
        for (uint256 i; i < calls.length; ++i) {
            (uint256 e, uint256 m, uint256 bps) = enforcer.quote(terms, calls[i]);
            assertEq(e, expected, "expected");
            assertEq(m, minOut, "minOut");
            assertEq(bps, refBps, "bps");
        }
    }
}
