// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../src/libraries/UsdValuation.sol";
import { MaxSlippageEnforcer } from "../src/enforcers/MaxSlippageEnforcer.sol";
import { TestPositionManager } from "../src/test-assets/TestPositionManager.sol";
import { TestUniswapV3Pool } from "../src/test-assets/TestUniswapV3Pool.sol";
import { TestSwapRouter } from "../src/test-assets/TestSwapRouter.sol";

/// MaxSlippage on removing liquidity: a decreaseLiquidity passes only while the position's pool is priced
/// within the cap of the feeds, whatever its minimums; in a batch only removals and collects on the same
/// manager may come before it.
contract MaxSlippageLiquidityRemovalTest is PricedAssetsTest {
    MaxSlippageEnforcer enforcer;
    TestPositionManager manager;
    TestPositionManager otherManager;
    TestUniswapV3Pool pool;
    uint16 constant MAX_BPS = 50; // 0.5 %
    bytes terms;
    uint256 tokenId;
    address token0;
    address token1;
    uint256 constant Q96 = 2 ** 96;

    function setUp() public {
        setUpAssets();
        enforcer = new MaxSlippageEnforcer();
        manager = new TestPositionManager();
        otherManager = new TestPositionManager();
        terms = abi.encode(MAX_BPS, MAX_AGE, tokenFeedsOnly());
        (token0, token1) = address(usdc) < address(weth) ? (address(usdc), address(weth)) : (address(weth), address(usdc));
        // 3000 USDC and 1 WETH: the pool is priced at the feeds' $1 / $3000.
        tokenId = _mint(manager, 3000e6, 1e18);
        _mint(otherManager, 3000e6, 1e18);
        pool = TestUniswapV3Pool(manager.getPool(token0, token1, 500));
    }

    function _amount(
        address token,
        uint256 usdcAmount,
        uint256 wethAmount
    ) internal view returns (uint256) {
        return token == address(usdc) ? usdcAmount : wethAmount;
    }

    function _mint(
        TestPositionManager m,
        uint256 usdcAmount,
        uint256 wethAmount
    ) internal returns (uint256 id) {
        usdc.mint(DELEGATOR, usdcAmount);
        weth.mint(DELEGATOR, wethAmount);
        vm.startPrank(DELEGATOR);
        usdc.approve(address(m), usdcAmount);
        weth.approve(address(m), wethAmount);
        (id,,,) = m.mint(
            TestPositionManager.MintParams(
                token0,
                token1,
                500,
                -600,
                600,
                _amount(token0, usdcAmount, wethAmount),
                _amount(token1, usdcAmount, wethAmount),
                0,
                0,
                DELEGATOR,
                T0 + 1 days
            )
        );
        vm.stopPrank();
    }

    function _decrease(
        uint256 id,
        uint128 liquidity,
        uint256 min0,
        uint256 min1
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            TestPositionManager.decreaseLiquidity.selector,
            TestPositionManager.DecreaseLiquidityParams(id, liquidity, min0, min1, T0 + 1 days)
        );
    }

    function _collect(
        uint256 id
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            TestPositionManager.collect.selector,
            TestPositionManager.CollectParams(id, DELEGATOR, type(uint128).max, type(uint128).max)
        );
    }

    function _hook(
        bytes32 mode,
        bytes memory execution
    ) internal view {
        enforcer.beforeHook(terms, "", mode, execution, HASH, DELEGATOR, REDEEMER);
    }

    function _remove(
        bytes memory callData
    ) internal view {
        _hook(SINGLE, single(address(manager), 0, callData));
    }

    /// The model: the feeds' price of token1 per token0 (Q96) and the pool's, written out from the rule.
    function _modelFeedX96() internal view returns (uint256) {
        (, int256 aUsdc,,,) = usdcFeed.latestRoundData();
        (, int256 aWeth,,,) = wethFeed.latestRoundData();
        // USDC: 6 decimals on an 8-decimal feed (14); WETH: 18 on 8 (26).
        if (token0 == address(usdc)) return uint256(aUsdc) * 1e12 * Q96 / uint256(aWeth);
        return uint256(aWeth) * Q96 / (uint256(aUsdc) * 1e12);
    }

    function _modelPoolX96() internal view returns (uint256) {
        (uint160 s,,,,,,) = pool.slot0();
        return UsdValuation.mulDiv(s, s, Q96, false);
    }

    function _offFeeds(
        uint256 bps
    ) internal view returns (bytes memory) {
        return abi.encodeWithSelector(
            MaxSlippageEnforcer.PoolPriceOffFeeds.selector, address(pool), _modelPoolX96(), _modelFeedX96(), bps, MAX_BPS
        );
    }

    function _modelBps() internal view returns (uint256) {
        uint256 p = _modelPoolX96();
        uint256 f = _modelFeedX96();
        return (p > f ? p - f : f - p) * 10_000 / f;
    }

    /// sqrtPriceX96 for the feeds' price moved by `num/den`.
    function _movedSqrt(
        uint256 num,
        uint256 den
    ) internal view returns (uint160) {
        return uint160(_sqrt(_modelFeedX96() * num / den * Q96));
    }

    function _sqrt(
        uint256 x
    ) internal pure returns (uint256 r) {
        if (x == 0) return 0;
        r = x;
        uint256 y = (x >> 1) + 1;
        while (y < r) {
            r = y;
            y = (x / y + y) >> 1;
        }
    }

    // ------------------------------------------------------------------ selectors and the stand-in

    function test_selectorsAreTheRealOnes() public pure {
        assertEq(
            bytes32(bytes4(keccak256("decreaseLiquidity((uint256,uint128,uint256,uint256,uint256))"))),
            bytes32(bytes4(0x0c49ccbe))
        );
        assertEq(bytes32(bytes4(keccak256("collect((uint256,address,uint128,uint128))"))), bytes32(bytes4(0xfc6f7865)));
        assertEq(bytes32(TestPositionManager.decreaseLiquidity.selector), bytes32(bytes4(0x0c49ccbe)));
        assertEq(bytes32(TestPositionManager.collect.selector), bytes32(bytes4(0xfc6f7865)));
        assertEq(
            bytes32(
                bytes4(keccak256("mint((address,address,uint24,int24,int24,uint256,uint256,uint256,uint256,address,uint256))"))
            ),
            bytes32(bytes4(0x88316456))
        );
    }

    function test_theStandInPricesItsPoolAtTheFirstMintsRatio() public view {
        assertEq(manager.factory(), address(manager));
        assertEq(manager.getPool(token1, token0, 500), address(pool));
        assertEq(manager.ownerOf(tokenId), DELEGATOR);
        assertEq(manager.balanceOf(DELEGATOR), 1);
        assertEq(manager.tokenOfOwnerByIndex(DELEGATOR, 0), tokenId);
        (,, address t0, address t1, uint24 fee,,, uint128 liquidity,,,,) = manager.positions(tokenId);
        assertEq(t0, token0);
        assertEq(t1, token1);
        assertEq(uint256(fee), 500);
        assertEq(uint256(liquidity), 3000e6 + 1e18);
        assertEq(_modelBps(), 0);
    }

    // ------------------------------------------------------------------ the rule

    function test_aFairPoolPassesWhateverTheMinimums() public view {
        _remove(_decrease(tokenId, 1, 0, 0));
        _remove(_decrease(tokenId, type(uint128).max, type(uint256).max, type(uint256).max));
    }

    function test_aPoolMovedPastTheCapIsRefusedEvenWithZeroMinimums() public {
        pool.movePrice(_movedSqrt(10_100, 10_000)); // 1 % above the feeds
        uint256 bps = _modelBps();
        assertGt(bps, MAX_BPS, "past the cap");
        vm.expectRevert(_offFeeds(bps));
        _remove(_decrease(tokenId, 1e6, 0, 0));
        pool.movePrice(_movedSqrt(9900, 10_000)); // 1 % below
        bps = _modelBps();
        vm.expectRevert(_offFeeds(bps));
        _remove(_decrease(tokenId, 1e6, 0, 0));
    }

    function test_atTheCapPassesAndJustPastItIsRefused() public {
        pool.movePrice(_movedSqrt(10_049, 10_000));
        assertLe(_modelBps(), MAX_BPS, "within the cap");
        _remove(_decrease(tokenId, 1e6, 0, 0));
        pool.movePrice(_movedSqrt(10_052, 10_000));
        uint256 bps = _modelBps();
        assertEq(bps, 51);
        vm.expectRevert(_offFeeds(bps));
        _remove(_decrease(tokenId, 1e6, 0, 0));
    }

    function test_aFeedMoveIsAMoveToo() public {
        wethFeed.setAnswer(3100e8); // the pool still at $3000
        uint256 bps = _modelBps();
        assertGt(bps, MAX_BPS, "past the cap");
        vm.expectRevert(_offFeeds(bps));
        _remove(_decrease(tokenId, 1e6, 0, 0));
    }

    function test_removalPriceAnswersWhatTheHookChecks() public {
        pool.movePrice(_movedSqrt(10_100, 10_000));
        (address p, uint256 poolX96, uint256 feedX96, uint256 bps) =
            enforcer.removalPrice(terms, address(manager), _decrease(tokenId, 1, 0, 0));
        assertEq(p, address(pool));
        assertEq(poolX96, _modelPoolX96());
        assertEq(feedX96, _modelFeedX96());
        assertEq(bps, _modelBps());
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.MalformedLiquidityRemoval.selector, bytes4(0xfc6f7865)));
        enforcer.removalPrice(terms, address(manager), _collect(tokenId));
    }

    function test_collectAloneIsNotChecked() public {
        pool.movePrice(_movedSqrt(2, 1));
        _remove(_collect(tokenId));
    }

    // ------------------------------------------------------------------ refusals by name

    function test_unpricedStaleAndInvalidFeedsRefuse() public {
        TokenFeed[] memory onlyUsdc = new TokenFeed[](1);
        onlyUsdc[0] = TokenFeed(address(usdc), 6, address(usdcFeed));
        bytes memory execution = single(address(manager), 0, _decrease(tokenId, 1, 0, 0));
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(weth)));
        enforcer.beforeHook(abi.encode(MAX_BPS, MAX_AGE, onlyUsdc), "", SINGLE, execution, HASH, DELEGATOR, REDEEMER);

        vm.warp(T0 + MAX_AGE + 1);
        address first = token0 == address(usdc) ? address(usdcFeed) : address(wethFeed);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.StalePrice.selector, first, T0, MAX_AGE));
        _hook(SINGLE, execution);

        usdcFeed.setAnswer(0);
        wethFeed.setAnswer(3000e8);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(usdcFeed), int256(0)));
        _hook(SINGLE, execution);
    }

    function test_aShortCallIsMalformed() public {
        bytes memory short = abi.encodePacked(bytes4(0x0c49ccbe), uint256(tokenId), uint256(1), uint256(0), uint256(0));
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.MalformedLiquidityRemoval.selector, bytes4(0x0c49ccbe)));
        _remove(short);
    }

    function test_anUnknownPositionRevertsAsTheManagerDoes() public {
        vm.expectRevert(bytes("Invalid token ID"));
        _remove(_decrease(99, 1, 0, 0));
    }

    function test_aManagerWhoseFactoryHasNoPoolIsRefused() public {
        NoPoolManager m = new NoPoolManager(token0, token1);
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.NoPool.selector, token0, token1, uint24(500)));
        _hook(SINGLE, single(address(m), 0, _decrease(1, 1, 0, 0)));
    }

    // ------------------------------------------------------------------ batches

    function test_inABatchOnlyRemovalsAndCollectsOnTheSameManagerMayComeFirst() public {
        Execution memory dec = Execution(address(manager), 0, _decrease(tokenId, 1, 0, 0));
        Execution memory col = Execution(address(manager), 0, _collect(tokenId));
        _hook(BATCH, batch(execs(dec, col)));
        _hook(BATCH, batch(execs(dec, col, dec)));
        _hook(BATCH_TRY, batch(execs(col, dec)));

        Execution memory swap = Execution(
            address(0x5e7e),
            0,
            abi.encodeWithSelector(
                TestSwapRouter.exactInputSingle.selector,
                TestSwapRouter.ExactInputSingleParams(address(usdc), address(weth), 500, DELEGATOR, 3000e6, 1e18, 0)
            )
        );
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.LiquidityRemovalAfterOtherCall.selector, 1, 0));
        _hook(BATCH, batch(execs(swap, dec)));

        Execution memory elsewhere = Execution(address(otherManager), 0, _collect(1));
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.LiquidityRemovalAfterOtherCall.selector, 2, 1));
        _hook(BATCH, batch(execs(dec, elsewhere, dec)));

        Execution memory approve = Execution(address(usdc), 0, abi.encodeWithSelector(0x095ea7b3, address(manager), 1));
        vm.expectRevert(abi.encodeWithSelector(MaxSlippageEnforcer.LiquidityRemovalAfterOtherCall.selector, 1, 0));
        _hook(BATCH, batch(execs(approve, dec)));
        // A removal first, anything after: the hook read the pool before anything ran.
        _hook(BATCH, batch(execs(dec, approve)));
    }

    function test_unsupportedCallTypeStillRefused() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(DELEGATECALL, single(address(manager), 0, _decrease(tokenId, 1, 0, 0)));
    }

    // ------------------------------------------------------------------ fuzz

    /// Any pool price and any feed prices: the hook accepts exactly when the model's deviation is within the
    /// cap, and refuses with the model's arguments otherwise; the minimums never matter.
    function testFuzz_acceptsExactlyWithinTheCap(
        uint256 moveBps,
        bool up,
        uint256 ethPrice,
        uint256 min0,
        uint256 min1
    ) public {
        moveBps = bound(moveBps, 0, 300);
        ethPrice = bound(ethPrice, 100e8, 100_000e8);
        wethFeed.setAnswer(int256(ethPrice));
        pool.movePrice(_movedSqrt(up ? 10_000 + moveBps : 10_000 - moveBps, 10_000));
        uint256 bps = _modelBps();
        if (bps > MAX_BPS) vm.expectRevert(_offFeeds(bps));
        _remove(_decrease(tokenId, 1, min0, min1));
    }

    /// The hook's prices are the model's to the unit, at any sqrtPriceX96 the pool can hold.
    function testFuzz_pricesMatchTheModel(
        uint160 sqrtPriceX96,
        uint256 usdcPrice
    ) public {
        sqrtPriceX96 = uint160(bound(sqrtPriceX96, 4_295_128_739, type(uint160).max));
        usdcFeed.setAnswer(int256(bound(usdcPrice, 1, 1e12)));
        pool.movePrice(sqrtPriceX96);
        (, uint256 poolX96, uint256 feedX96, uint256 bps) =
            enforcer.removalPrice(terms, address(manager), _decrease(tokenId, 1, 0, 0));
        assertEq(poolX96, _modelPoolX96());
        assertEq(feedX96, _modelFeedX96());
        assertEq(bps, _modelBps());
    }
}

/// A manager whose factory knows no pool for its positions.
contract NoPoolManager {
    address immutable t0;
    address immutable t1;

    constructor(
        address token0,
        address token1
    ) {
        (t0, t1) = (token0, token1);
    }

    function factory() external view returns (address) {
        return address(this);
    }

    function getPool(
        address,
        address,
        uint24
    ) external pure returns (address) {
        return address(0);
    }

    function positions(
        uint256
    )
        external
        view
        returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)
    {
        return (0, address(0), t0, t1, 500, -600, 600, 1, 0, 0, 0, 0);
    }
}
