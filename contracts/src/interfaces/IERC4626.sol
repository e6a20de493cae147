// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "./IERC20.sol";

interface IERC4626 is IERC20 {
    function asset() external view returns (address);
    function totalAssets() external view returns (uint256);
    function convertToAssets(
        uint256 shares
    ) external view returns (uint256);
    function convertToShares(
        uint256 assets
    ) external view returns (uint256);
    function previewMint(
        uint256 shares
    ) external view returns (uint256);
    function previewRedeem(
        uint256 shares
    ) external view returns (uint256);
    function deposit(
        uint256 assets,
        address receiver
    ) external returns (uint256 shares);
    function mint(
        uint256 shares,
        address receiver
    ) external returns (uint256 assets);
    function withdraw(
        uint256 assets,
        address receiver,
        address owner
    ) external returns (uint256 shares);
    function redeem(
        uint256 shares,
        address receiver,
        address owner
    ) external returns (uint256 assets);
}
